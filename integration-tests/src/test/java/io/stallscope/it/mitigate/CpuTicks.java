package io.stallscope.it.mitigate;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time from /proc: a process's user+system time and the whole machine's busy time, in clock ticks
 * (USER_HZ, 100 per second on Linux), to tell how busy the 2 cores were in a window.
 */
final class CpuTicks {
    static final double HZ = 100;

    private CpuTicks() {
    }

    /** utime + stime of the process (all its threads), or -1 if it is gone. */
    static long process(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            // the command name (field 2) may hold spaces: count fields after its closing parenthesis
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** Busy ticks of all cores (everything but idle and iowait), from the first line of /proc/stat. */
    static long machineBusy() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long busy = 0;
            for (int i = 1; i < f.length && i <= 8; i++) {
                if (i != 4 && i != 5) {
                    busy += Long.parseLong(f[i]);
                }
            }
            return busy;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * Ticks the hypervisor gave to others while this VM's cores wanted to run (steal, field 8 of
     * /proc/stat): a stall of the whole VM, which no process here can cause or avoid.
     */
    static long machineSteal() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            return f.length > 8 ? Long.parseLong(f[8]) : -1;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * CPU ticks of the kernel's DAMON threads (kdamond.N), or -1 if there are none. On this VM a DAMON
     * pageout scheme reclaims idle page cache; its thread can take most of a core while a catch-up
     * streams a GiB through the page cache, which on 2 cores is half the machine.
     */
    static long kdamond() {
        long sum = -1;
        try (java.util.stream.Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : (Iterable<Path>) procs::iterator) {
                String name = p.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                try {
                    if (Files.readString(p.resolve("comm")).startsWith("kdamond")) {
                        long t = process(Long.parseLong(name));
                        if (t >= 0) {
                            sum = Math.max(sum, 0) + t;
                        }
                    }
                } catch (IOException | RuntimeException e) {
                    // the process went away between the listing and the read
                }
            }
        } catch (IOException e) {
            return -1;
        }
        return sum;
    }

    /** Percent of one core used over {@code nanos}, from two tick counts. */
    static double percent(long ticksBefore, long ticksAfter, long nanos) {
        if (ticksBefore < 0 || ticksAfter < 0) {
            return Double.NaN;
        }
        return (ticksAfter - ticksBefore) / HZ / (nanos / 1e9) * 100;
    }
}
