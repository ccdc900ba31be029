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

    /** Percent of one core used over {@code nanos}, from two tick counts. */
    static double percent(long ticksBefore, long ticksAfter, long nanos) {
        if (ticksBefore < 0 || ticksAfter < 0) {
            return Double.NaN;
        }
        return (ticksAfter - ticksBefore) / HZ / (nanos / 1e9) * 100;
    }
}
