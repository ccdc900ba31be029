package io.stallscope.analyzer.cli;

import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses the time arguments: durations with units, offsets from the recording's start, wall-clock times. */
final class TimeArgs {
    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ns|us|µs|ms|s|m|min|h)?");

    private TimeArgs() {
    }

    /** Nanoseconds; a bare number is multiplied by {@code bareUnitNanos}. */
    static long duration(String s, long bareUnitNanos) {
        Matcher m = DURATION.matcher(s.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) throw new IllegalArgumentException("invalid duration '" + s + "' (use e.g. 10ms, 1.5s, 2m)");
        double v = Double.parseDouble(m.group(1));
        String unit = m.group(2);
        long scale = unit == null ? bareUnitNanos : switch (unit) {
            case "ns" -> 1L;
            case "us", "µs" -> 1_000L;
            case "ms" -> 1_000_000L;
            case "s" -> 1_000_000_000L;
            case "m", "min" -> 60_000_000_000L;
            default -> 3_600_000_000_000L;
        };
        return (long) (v * scale);
    }

    /** Epoch nanoseconds for T: an offset from {@code startNanos}, an ISO instant, or a UTC time on the start's day. */
    static long instant(String s, long startNanos) {
        String t = s.trim();
        try {
            if (t.contains("T") && t.length() > 10) {
                Instant i = Instant.parse(t);
                return i.getEpochSecond() * 1_000_000_000L + i.getNano();
            }
            if (t.contains(":")) {
                LocalTime lt = LocalTime.parse(t);
                long day = Math.floorDiv(startNanos, 86_400_000_000_000L) * 86_400_000_000_000L;
                return day + lt.toNanoOfDay();
            }
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("invalid time '" + s + "' (use 30s, 04:25:09 or 2024-05-01T04:25:09Z)");
        }
        try {
            return startNanos + duration(t, 1_000_000_000L);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid time '" + s + "' (use 30s, 04:25:09 or 2024-05-01T04:25:09Z)");
        }
    }

    /** Whether two times are of one kind (both offsets, both clock times, both instants), so compare as given. */
    static boolean sameKind(String a, String b) {
        return kind(a) == kind(b);
    }

    private static int kind(String s) {
        String t = s.trim();
        return t.contains("T") && t.length() > 10 ? 2 : t.contains(":") ? 1 : 0;
    }

    /**
     * Why --from/--to select nothing of a recording spanning [start, end] (epoch ns), or null when they are fine:
     * inverted, or wholly before or after it. The message names the recording's span so the fix is at hand.
     */
    static String outside(String from, long fromNanos, String to, long toNanos, long start, long end) {
        if (from != null && to != null && fromNanos > toNanos) return "--from " + from + " is after --to " + to + "; " + span(start, end);
        if (from != null && fromNanos > end) return "--from " + from + " is after the recording's end: " + span(start, end);
        if (to != null && toNanos < start) return "--to " + to + " is before the recording's start: " + span(start, end);
        return null;
    }

    /** Made only for the message: formatting it on every run cost a small report about 10 ms of its start. */
    private static String span(long start, long end) {
        return String.format(java.util.Locale.ROOT, "the recording runs from %s to %s (+0 s to +%.1f s)",
                Instant.ofEpochSecond(0, start), Instant.ofEpochSecond(0, end), (end - start) / 1e9);
    }

    static ZoneOffset utc() {
        return ZoneOffset.UTC;
    }
}
