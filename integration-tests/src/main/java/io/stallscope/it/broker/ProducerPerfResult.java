package io.stallscope.it.broker;

import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The summary line of {@code org.apache.kafka.tools.ProducerPerformance}, e.g.
 * {@code 50000 records sent, 24863.3 records/sec (23.71 MB/sec), 530.12 ms avg latency, 900.00 ms max latency,
 * 512 ms 50th, 850 ms 95th, 890 ms 99th, 899 ms 99.9th.}
 */
public record ProducerPerfResult(long records, double recordsPerSec, double mbPerSec, double avgLatencyMs,
                                 double maxLatencyMs, double p50Ms, double p95Ms, double p99Ms, double p999Ms) {

    private static final String NUM = "([0-9]+(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)";
    private static final Pattern SUMMARY = Pattern.compile(
            "(\\d+) records sent, " + NUM + " records/sec \\(" + NUM + " MB/sec\\), " + NUM + " ms avg latency, "
                    + NUM + " ms max latency, " + NUM + " ms 50th, " + NUM + " ms 95th, " + NUM + " ms 99th, "
                    + NUM + " ms 99\\.9th");

    /** Parses one summary line; empty if the line is not one (e.g. a periodic progress line). */
    public static Optional<ProducerPerfResult> parseLine(String line) {
        Matcher m = SUMMARY.matcher(line);
        if (!m.find()) {
            return Optional.empty();
        }
        return Optional.of(new ProducerPerfResult(Long.parseLong(m.group(1)), d(m, 2), d(m, 3), d(m, 4), d(m, 5),
                d(m, 6), d(m, 7), d(m, 8), d(m, 9)));
    }

    /** The last summary line in a tool's whole output. */
    public static ProducerPerfResult parseOutput(String output) {
        List<String> lines = output.lines().toList();
        for (int i = lines.size() - 1; i >= 0; i--) {
            Optional<ProducerPerfResult> r = parseLine(lines.get(i));
            if (r.isPresent()) {
                return r.get();
            }
        }
        throw new IllegalArgumentException("no ProducerPerformance summary line in output:\n" + output);
    }

    private static double d(Matcher m, int group) {
        return Double.parseDouble(m.group(group));
    }
}
