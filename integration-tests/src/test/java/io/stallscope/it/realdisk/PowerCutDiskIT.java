package io.stallscope.it.realdisk;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A cut is what a power cut leaves, on real loop devices (root): data fsynced before the cut is in it, data
 * written just before it but still in the page cache is not (while the live file system has it), and a
 * cut taken after that data's fsync has it.
 */
class PowerCutDiskIT {
    private static final Path DIR = Path.of(System.getProperty("stallscope.it.target", "target"), "realdisk").toAbsolutePath();

    @BeforeEach
    void requireRealDisk() {
        RealDiskRequirement.assumeAvailable();
    }

    @ParameterizedTest
    @EnumSource(FsType.class)
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void aCutHoldsWhatWasSyncedAndNotWhatWasOnlyInThePageCache(FsType fs) throws Exception {
        byte[] synced = bytes(1, 256 << 10);
        byte[] dirty = bytes(2, 1 << 20);
        try (PowerCutDisk disk = PowerCutDisk.create(fs, 1L << 30, DIR)) {
            Path a = disk.mountPoint().resolve("synced");
            Path b = disk.mountPoint().resolve("dirty");
            write(a, synced, true);
            write(b, dirty, false); // the kernel writes it back after 30 s (dirty_expire_centisecs) at the earliest
            Path cut1 = disk.cut();
            assertThat(Files.readAllBytes(b)).as("the live file system has the unsynced file").isEqualTo(dirty);
            try (RealDisk copy = disk.open(cut1)) {
                assertThat(Files.readAllBytes(copy.mountPoint().resolve("synced"))).as("fsynced data in the cut").isEqualTo(synced);
                Path lost = copy.mountPoint().resolve("dirty");
                // the file may exist (ext4 commits its metadata every 5 s) but never with the data
                assertThat(Files.exists(lost) ? Files.readAllBytes(lost) : new byte[0])
                    .as("page-cache-only data in the cut").isNotEqualTo(dirty);
            }
            try (FileChannel ch = FileChannel.open(b, StandardOpenOption.WRITE)) {
                ch.force(true);
            }
            try (RealDisk copy = disk.open(disk.cut())) {
                assertThat(Files.readAllBytes(copy.mountPoint().resolve("dirty"))).as("the data once fsynced").isEqualTo(dirty);
            }
        }
    }

    private static void write(Path file, byte[] data, boolean fsync) throws Exception {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.wrap(data));
            if (fsync) {
                ch.force(true);
            }
        }
        if (fsync) {
            try (FileChannel dir = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
                dir.force(true); // the directory entry too
            }
        }
    }

    private static byte[] bytes(long seed, int n) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }
}
