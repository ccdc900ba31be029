package io.stallscope.it.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The load averages when a benchmark ran, printed next to its figures: a 2-core machine is shared. */
public final class LoadAverage {
    private LoadAverage() {
    }

    /** "0.52 0.61 0.70": the 1, 5 and 15 minute averages from /proc/loadavg, or "unknown (why)". */
    public static String now() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | ArrayIndexOutOfBoundsException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    /** The 1 minute average as {@link #now()} prints it. */
    public static String oneMinute() {
        return now().split(" ")[0];
    }
}
