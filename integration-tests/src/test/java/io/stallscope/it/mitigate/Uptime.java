package io.stallscope.it.mitigate;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The load average when a benchmark ran, reported next to its figures (a 2-core machine is shared). */
final class Uptime {
    private Uptime() {
    }

    /** "load average 0.52 0.61 0.70" from /proc/loadavg. */
    static String now() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return "load average " + f[0] + " " + f[1] + " " + f[2];
        } catch (IOException e) {
            return "load average unknown (" + e.getMessage() + ")";
        }
    }
}
