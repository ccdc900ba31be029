package io.stallscope.analyzer.util;

import java.util.Locale;

/**
 * Durations as a person reads them: milliseconds below ten seconds, then seconds, then hours. The waiting summed
 * over a storm's threads runs to hours, and "35957653.2 ms" has to be counted digit by digit.
 */
public final class Durations {
    private Durations() {
    }

    /** Below this, milliseconds; the bound is where "%.1f" would round up to 10000.0. */
    private static final long MS_BELOW = 9_999_950_000L;
    /** Below this, seconds. */
    private static final long S_BELOW = 9_999_950_000_000L;

    /** Milliseconds to two decimals, as JSON and the HTML's data carry every duration (never another unit). */
    public static double ms(long nanos) {
        return Math.round(nanos / 1e4) / 100.0;
    }

    /** "736.4 ms", "35.2 s", "10.0 h". */
    public static String text(long nanos) {
        return String.format(Locale.ROOT, "%.1f %s", in(nanos, Math.abs(nanos)), unit(Math.abs(nanos)));
    }

    /** Several durations in the unit of the largest: "470.0, 460.0 ms", "35.2, 0.4 s". */
    public static String list(long[] nanos) {
        if (nanos.length == 0) return "";
        long largest = 0;
        for (long n : nanos) largest = Math.max(largest, Math.abs(n));
        StringBuilder s = new StringBuilder();
        for (long n : nanos) {
            if (s.length() > 0) s.append(", ");
            s.append(String.format(Locale.ROOT, "%.1f", in(n, largest)));
        }
        return s.append(' ').append(unit(largest)).toString();
    }

    private static String unit(long largest) {
        return largest < MS_BELOW ? "ms" : largest < S_BELOW ? "s" : "h";
    }

    private static double in(long nanos, long largest) {
        return largest < MS_BELOW ? nanos / 1e6 : largest < S_BELOW ? nanos / 1e9 : nanos / 3.6e12;
    }
}
