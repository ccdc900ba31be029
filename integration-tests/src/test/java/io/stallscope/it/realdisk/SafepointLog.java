package io.stallscope.it.realdisk;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The JVM's own witness of time to safepoint, independent of the agent: {@code -Xlog:safepoint=info:file=F:utctime}
 * writes a line per safepoint, e.g.
 * {@code [2026-11-29T23:40:01.123+0000] Safepoint "Cleanup", Time since last: 1000349201 ns, Reaching safepoint: 184601 ns, ...}.
 */
record SafepointLog(List<SafepointLog.Entry> entries) {
    /** One safepoint: when the line was written (its end), the VM operation, and its time to safepoint. */
    record Entry(Instant at, String operation, long reachingNanos) {
        double reachingMs() {
            return reachingNanos / 1e6;
        }
    }

    private static final Pattern LINE = Pattern.compile(
        "^\\[([^\\]]+)\\].*Safepoint \"([^\"]+)\".*Reaching safepoint: ([0-9]+) ns");
    private static final DateTimeFormatter UTC_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSZ", Locale.ROOT);

    /** The -Xlog option that writes what {@link #read} reads. */
    static String jvmOption(Path file) {
        return "-Xlog:safepoint=info:file=" + file.toAbsolutePath() + ":utctime";
    }

    static SafepointLog read(Path file) throws IOException {
        List<Entry> out = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.ISO_8859_1)) {
            Matcher m = LINE.matcher(line);
            if (m.find()) {
                out.add(new Entry(OffsetDateTime.parse(m.group(1), UTC_TIME).toInstant(), m.group(2), Long.parseLong(m.group(3))));
            }
        }
        return new SafepointLog(out);
    }

    /** The safepoints whose line was written in [from, to). */
    SafepointLog between(Instant from, Instant to) {
        return new SafepointLog(entries.stream().filter(e -> !e.at().isBefore(from) && e.at().isBefore(to)).toList());
    }

    int count() {
        return entries.size();
    }

    int atLeastMs(double ms) {
        return (int) entries.stream().filter(e -> e.reachingMs() >= ms).count();
    }

    /** The q-quantile (1 = max) of time to safepoint, in ms; NaN with none. */
    double quantileMs(double q) {
        if (entries.isEmpty()) {
            return Double.NaN;
        }
        long[] v = entries.stream().mapToLong(Entry::reachingNanos).toArray();
        Arrays.sort(v);
        return v[Math.min(v.length - 1, (int) Math.ceil(q * v.length) - 1)] / 1e6;
    }
}
