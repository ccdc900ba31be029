package io.stallscope.agent.capture;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** Capture file names: stallscope-20261121T081502Z-records_append.jfr, by the stall's end and its op. */
final class CaptureNames {
    static final String PREFIX = "stallscope-";
    static final String SUFFIX = ".jfr";
    private static final DateTimeFormatter STAMP =
        DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

    private CaptureNames() {
    }

    static String of(Instant when, String what) {
        return PREFIX + STAMP.format(when) + "-" + what.replaceAll("[^A-Za-z0-9_.-]", "_") + SUFFIX;
    }

    /** Whether a file in the capture directory is one of ours (the caps count only these). */
    static boolean isCapture(String fileName) {
        return fileName.startsWith(PREFIX) && fileName.endsWith(SUFFIX);
    }
}
