package io.stallscope.it.mitigate;

import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.realdisk.FsType;
import io.stallscope.it.realdisk.IoLimits;
import io.stallscope.it.realdisk.RealDisk;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The disk a benchmark's broker runs on, chosen by {@code -Dstallscope.bench.disk=shim|xfs|ext4}: the
 * LD_PRELOAD shim's sleeps on the work directory (the default, today's figures), or a real loop-device file
 * system slowed by the cgroup I/O controller (root), with the demo's limits: 20 write IOPS for the roll
 * spike, a read rate for the catch-up. The broker's KRaft metadata log stays off the real disk: it fsyncs
 * every batch, and the benchmarks are about the data.
 */
final class BenchDisk implements AutoCloseable {
    static final String PROPERTY = "stallscope.bench.disk";
    /** The demo's write limit: every fsync waits for its own writes, about 100 ms for a snapshot. */
    static final int WRITE_IOPS = Integer.getInteger("stallscope.bench.disk.write.iops", 20);
    /** The demo's cold-read rate. */
    static final double READ_MIB_PER_SECOND = Double.parseDouble(System.getProperty("stallscope.bench.disk.read.mibps", "25"));

    private final RealDisk disk;
    private final Path metadataDir;

    private BenchDisk(RealDisk disk, Path metadataDir) {
        this.disk = disk;
        this.metadataDir = metadataDir;
    }

    /** The file system asked for, or null for the shim. */
    static FsType selected() {
        String v = System.getProperty(PROPERTY, "shim").trim();
        return v.equalsIgnoreCase("shim") ? null : FsType.of(v);
    }

    /** "shim" or the file system's name, for file names and tables. */
    static String label() {
        FsType fs = selected();
        return fs == null ? "shim" : fs.kernelName();
    }

    /** A real disk of the selected file system with these limits, in {@code dir} (fails where none can be made). */
    static BenchDisk create(FsType fs, IoLimits limits, Path dir) throws Exception {
        RealDisk.unavailableReason().ifPresent(why -> {
            throw new IllegalStateException("-D" + PROPERTY + "=" + fs.kernelName() + ": " + why);
        });
        Files.createDirectories(dir);
        RealDisk disk = RealDisk.create(fs, 4L << 30, dir).limit(limits);
        return new BenchDisk(disk, Files.createTempDirectory(dir, "metadata"));
    }

    /** The broker's log dir on the disk, the broker started inside its cgroup, the metadata log off it. */
    BrokerSpec.Builder applyTo(BrokerSpec.Builder spec) {
        return spec.dataDir(disk.mountPoint().resolve("kafka")).launchWrapper(disk.launchWrapper())
            .serverProperty("metadata.log.dir", metadataDir.toString());
    }

    RealDisk disk() {
        return disk;
    }

    /** The disk's description and what the broker moved through the throttle so far. */
    String describe() {
        var s = disk.ioStat();
        return String.format(Locale.ROOT, "%s; through the throttle: read %.0f MiB in %d reads, wrote %.0f MiB in %d writes",
            disk.describe(), s.readBytes() / 1048576.0, s.readOps(), s.writeBytes() / 1048576.0, s.writeOps());
    }

    @Override
    public void close() {
        disk.close();
    }
}
