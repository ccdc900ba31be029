package io.stallscope.it.realdisk;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A test JVM that dies in the middle of a real-disk test (for {@link RealDiskIT}): makes a disk, starts a
 * process in its cgroup with a file open on it, prints "device mount cgroup", then halts without running
 * its shutdown hooks, as a SIGKILL or a forked JVM timeout would end it.
 * Arguments: the directory for the image, the file system (xfs or ext4).
 */
public final class RealDiskCrashMain {
    private RealDiskCrashMain() {
    }

    public static void main(String[] args) throws Exception {
        RealDisk disk = RealDisk.create(FsType.of(args[1]), 512L << 20, Path.of(args[0]));
        disk.limit(IoLimits.readMiBps(1));
        List<String> cmd = new ArrayList<>(disk.launchWrapper());
        // holds a file on the mount open, as a broker would: umount alone would fail with EBUSY
        cmd.addAll(List.of("sh", "-c", "exec 3>>'" + disk.mountPoint().resolve("held") + "'; exec sleep 600"));
        Process holder = new ProcessBuilder(cmd).start();
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!disk.cgroup().pids().contains(holder.pid()) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        System.out.println(disk.device() + " " + disk.mountPoint() + " " + disk.cgroup().dir() + " " + holder.pid());
        System.out.flush();
        Runtime.getRuntime().halt(3);
    }
}
