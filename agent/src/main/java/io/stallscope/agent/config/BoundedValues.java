package io.stallscope.agent.config;

import java.util.Locale;

/** Parsers with bounds, for the mitigation knobs: a value outside its range is refused with the range. */
final class BoundedValues {
    private BoundedValues() {
    }

    static Integer intIn(String v, int min, int max) {
        try {
            int n = Integer.parseInt(v);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException ignored) {
            // fall through to the one message
        }
        throw new IllegalArgumentException("expected a whole number from " + min + " to " + max);
    }

    /** A duration (see {@link #duration}) within [min, max] nanoseconds. */
    static Long durationIn(String v, long min, long max) {
        long nanos = Values.duration(v);
        if (nanos < min || nanos > max) {
            throw new IllegalArgumentException("expected a duration from " + humanNanos(min) + " to " + humanNanos(max));
        }
        return nanos;
    }

    /** A byte count: a whole number with an optional unit B, KiB, MiB or GiB (k, m, g alike), within [min, max]. */
    static Long bytesIn(String v, long min, long max) {
        String lower = v.toLowerCase(Locale.ROOT);
        int i = 0;
        while (i < lower.length() && Character.isDigit(lower.charAt(i))) {
            i++;
        }
        long unit;
        switch (lower.substring(i).trim()) {
            case "": case "b": unit = 1; break;
            case "k": case "kb": case "kib": unit = 1L << 10; break;
            case "m": case "mb": case "mib": unit = 1L << 20; break;
            case "g": case "gb": case "gib": unit = 1L << 30; break;
            default: unit = -1;
        }
        if (i == 0 || i > 12 || unit < 0) {
            throw new IllegalArgumentException("expected a size such as 65536, 512KiB or 1MiB");
        }
        long bytes = Long.parseLong(lower.substring(0, i)) * unit;
        if (bytes < min || bytes > max) {
            throw new IllegalArgumentException("expected a size from " + humanBytes(min) + " to " + humanBytes(max));
        }
        return bytes;
    }

    private static String humanNanos(long nanos) {
        if (nanos == 0) {
            return "0";
        }
        return nanos % 60_000_000_000L == 0 ? nanos / 60_000_000_000L + "m"
            : nanos % 1_000_000_000L == 0 ? nanos / 1_000_000_000L + "s" : nanos / 1_000_000L + "ms";
    }

    private static String humanBytes(long bytes) {
        return bytes >= (1L << 20) && bytes % (1L << 20) == 0 ? (bytes >> 20) + "MiB"
            : bytes >= 1024 && bytes % 1024 == 0 ? (bytes >> 10) + "KiB" : Long.toString(bytes);
    }
}
