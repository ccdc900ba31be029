package io.stallscope.it.realdisk;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.stallscope.it.slowdisk.PageCache;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The real-disk harness itself, on real loop devices (root): the file system is what was asked for, the
 * cgroup throttles cold reads of its device and only for processes inside it, and nothing is left behind,
 * not by a test that fails with a process still inside, and not by a test JVM that dies midway.
 */
class RealDiskIT {
    private static final Path DIR = Path.of(System.getProperty("stallscope.it.target", "target"), "realdisk").toAbsolutePath();

    @BeforeEach
    void requireRealDisk() {
        RealDiskRequirement.assumeAvailable();
    }

    @ParameterizedTest
    @EnumSource(FsType.class)
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void coldReadsAreThrottledInsideTheCgroupOnly(FsType fs) throws Exception {
        try (RealDisk disk = RealDisk.create(fs, 1L << 30, DIR)) {
            assertThat(mountType(disk.mountPoint())).isEqualTo(fs.kernelName());
            Path file = disk.mountPoint().resolve("cold");
            try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
                byte[] mib = new byte[1 << 20];
                new java.util.Random(1).nextBytes(mib);
                for (int i = 0; i < 8; i++) {
                    f.write(mib);
                }
            }
            disk.limit(IoLimits.readMiBps(2));
            System.out.println("disk: " + disk.describe());
            PageCache.evict(List.of(file));
            assertThat(PageCache.residentFraction(List.of(file))).isLessThan(0.01);
            // 8 MiB at 2 MiB/s: the kernel holds the read back for at least ~3 s (the first slice passes at once)
            long inside = timedRead(disk.launchWrapper(), file);
            assertThat(inside).as("ms to read 8 cold MiB inside the cgroup at 2 MiB/s").isGreaterThan(2500);
            PageCache.evict(List.of(file));
            long outside = timedRead(List.of(), file);
            assertThat(outside).as("ms to read 8 cold MiB outside the cgroup").isLessThan(inside / 2);
        }
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void closeRemovesEverythingEvenWithAProcessStillInside() throws Exception {
        RealDisk disk = RealDisk.create(FsType.XFS, 512L << 20, DIR);
        String device = disk.device();
        Path mount = disk.mountPoint();
        Path cgroup = disk.cgroup().dir();
        List<String> cmd = new ArrayList<>(disk.launchWrapper());
        cmd.addAll(List.of("sh", "-c", "exec 3>>'" + mount.resolve("held") + "'; exec sleep 600"));
        Process holder = new ProcessBuilder(cmd).start();
        awaitInside(disk, holder.pid());
        disk.close(); // a test that failed midway, its broker still running on the disk
        assertThat(holder.waitFor(10, TimeUnit.SECONDS)).as("process in the cgroup killed").isTrue();
        assertGone(device, mount, cgroup);
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void theNextHarnessReapsWhatADeadTestJvmLeft() throws Exception {
        Path argFile = DIR.resolve("crash.args");
        Files.createDirectories(DIR);
        Files.writeString(argFile, "-cp \"" + System.getProperty("java.class.path").replace("\\", "\\\\") + "\"\n");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process crash = new ProcessBuilder(java, "@" + argFile, RealDiskCrashMain.class.getName(), DIR.toString(), "ext4")
            .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String line = new String(crash.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(crash.waitFor(2, TimeUnit.MINUTES)).isTrue();
        assertThat(crash.exitValue()).as("the crashing JVM's exit (halt 3); it printed: " + line).isEqualTo(3);
        String[] f = line.split(" ");
        String device = f[0];
        Path mount = Path.of(f[1]);
        Path cgroup = Path.of(f[2]);
        long holder = Long.parseLong(f[3]);
        // what it left: the loop device, the mount, the cgroup with a process holding a file on the mount
        assertThat(Teardown.mountedAt(device, mount.toString())).isTrue();
        assertThat(Files.isDirectory(cgroup)).isTrue();
        assertThat(running(holder)).as("process holding a file on the disk").isTrue();

        List<String> reaped = RealDiskReaper.reapOrphans();
        assertThat(reaped).anySatisfy(r -> assertThat(r).contains(device).doesNotContain("left:"));
        assertThat(running(holder)).as("process " + holder + " killed").isFalse();
        assertGone(device, mount, cgroup);
    }

    private static void assertGone(String device, Path mount, Path cgroup) throws Exception {
        assertThat(Teardown.mountedAt(device, mount.toString())).as(mount + " unmounted").isFalse();
        assertThat(Files.exists(mount)).as(mount + " removed").isFalse();
        assertThat(Files.exists(cgroup)).as(cgroup + " removed").isFalse();
        Path backing = Path.of("/sys/block", Path.of(device).getFileName().toString(), "loop", "backing_file");
        assertThat(Files.exists(backing)).as(device + " detached").isFalse();
        try (var images = Files.list(DIR)) {
            assertThat(images.filter(p -> p.getFileName().toString().endsWith(".img"))
                .filter(p -> p.getFileName().toString().startsWith("stallscope-" + ProcessHandle.current().pid() + "-")
                    || mount.getFileName().toString().startsWith(p.getFileName().toString().replace(".img", "")))).isEmpty();
        }
    }

    /**
     * Whether the process exists and is not a zombie: the dead JVM's child is reparented to this machine's
     * init, which may not reap it, and a zombie still answers kill(pid, 0).
     */
    private static boolean running(long pid) throws Exception {
        Path stat = Path.of("/proc", Long.toString(pid), "stat");
        if (!Files.exists(stat)) {
            return false;
        }
        String s = Files.readString(stat);
        return s.charAt(s.lastIndexOf(')') + 2) != 'Z';
    }

    private static void awaitInside(RealDisk disk, long pid) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!disk.cgroup().pids().contains(pid)) {
            assertThat(System.nanoTime()).as("process " + pid + " in " + disk.cgroup().dir()).isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    /** Reads the whole file with dd, through the wrapper (or not), and returns the milliseconds it took. */
    private static long timedRead(List<String> wrapper, Path file) throws Exception {
        List<String> cmd = new ArrayList<>(wrapper);
        cmd.addAll(List.of("dd", "if=" + file, "of=/dev/null", "bs=1M", "status=none"));
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return (System.nanoTime() - t0) / 1_000_000;
    }

    private static String mountType(Path mount) throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/mounts"))) {
            String[] f = line.split(" ");
            if (f[1].equals(mount.toString())) {
                return f[2];
            }
        }
        return "not mounted";
    }
}
