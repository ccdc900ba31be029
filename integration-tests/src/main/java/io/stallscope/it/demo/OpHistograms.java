package io.stallscope.it.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The agent's op histograms from one Prometheus scrape (stallscope_op_seconds{op,role} buckets and the
 * stallscope_op_seconds_max gauge), and what happened between two scrapes. Percentiles are the upper
 * bounds of the buckets they fall in: the histogram knows nothing finer.
 */
public final class OpHistograms {
    private static final Pattern BUCKET = Pattern.compile(
        "^stallscope_op_seconds_bucket\\{op=\"([^\"]+)\",role=\"([^\"]+)\",le=\"([^\"]+)\"} (\\S+)$");
    private static final Pattern MAX = Pattern.compile(
        "^stallscope_op_seconds_max\\{op=\"([^\"]+)\",role=\"([^\"]+)\"} (\\S+)$");

    /** An op on a thread role. */
    public record Key(String op, String role) implements Comparable<Key> {
        @Override
        public int compareTo(Key o) {
            int c = op.compareTo(o.op);
            return c != 0 ? c : role.compareTo(o.role);
        }
    }

    /**
     * One op on one thread role over an interval. {@code max} is the agent's own maximum when it falls in
     * the highest bucket seen in the interval ({@code maxExact}); otherwise (the agent's maximum is from
     * before the interval) the upper bound of that bucket.
     */
    public record Row(String op, String role, long count, double p50, double p99, double p999, double max,
                      boolean maxExact) {
    }

    private final Map<Key, TreeMap<Double, Double>> cumulative;
    private final Map<Key, Double> max;

    private OpHistograms(Map<Key, TreeMap<Double, Double>> cumulative, Map<Key, Double> max) {
        this.cumulative = cumulative;
        this.max = max;
    }

    public static OpHistograms empty() {
        return new OpHistograms(new TreeMap<>(), new TreeMap<>());
    }

    public static OpHistograms parse(String scrape) {
        Map<Key, TreeMap<Double, Double>> buckets = new TreeMap<>();
        Map<Key, Double> max = new TreeMap<>();
        for (String line : scrape.split("\n")) {
            Matcher b = BUCKET.matcher(line);
            if (b.matches()) {
                double le = b.group(3).equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(b.group(3));
                buckets.computeIfAbsent(new Key(b.group(1), b.group(2)), k -> new TreeMap<>())
                    .put(le, Double.parseDouble(b.group(4)));
                continue;
            }
            Matcher m = MAX.matcher(line);
            if (m.matches()) {
                max.put(new Key(m.group(1), m.group(2)), Double.parseDouble(m.group(3)));
            }
        }
        return new OpHistograms(buckets, max);
    }

    /** Every op and role with at least one op since {@code earlier} (a scrape of the same agent). */
    public List<Row> since(OpHistograms earlier) {
        List<Row> rows = new ArrayList<>();
        cumulative.forEach((key, now) -> {
            TreeMap<Double, Double> before = earlier.cumulative.getOrDefault(key, new TreeMap<>());
            TreeMap<Double, Double> delta = new TreeMap<>();
            // a counter that went down means the agent was attached again: count from zero
            boolean reset = now.lastEntry().getValue() < (before.isEmpty() ? 0 : before.lastEntry().getValue());
            now.forEach((le, c) -> delta.put(le, reset ? c : c - before.getOrDefault(le, 0.0)));
            double count = delta.lastEntry().getValue();
            if (count > 0) {
                rows.add(row(key, delta, count));
            }
        });
        return rows;
    }

    /** Every op and role since the agent started. */
    public List<Row> rows() {
        return since(empty());
    }

    public static Optional<Row> find(List<Row> rows, String op, String role) {
        return rows.stream().filter(r -> r.op().equals(op) && r.role().equals(role)).findFirst();
    }

    private Row row(Key key, TreeMap<Double, Double> delta, double count) {
        double lower = 0;
        double upper = Double.POSITIVE_INFINITY;
        double previous = 0;
        for (Map.Entry<Double, Double> e : delta.entrySet()) {
            if (e.getValue() > previous) {
                upper = e.getKey();
                lower = delta.lowerKey(e.getKey()) == null ? 0 : delta.lowerKey(e.getKey());
            }
            previous = e.getValue();
        }
        double agentMax = max.getOrDefault(key, Double.NaN);
        boolean exact = agentMax > lower && agentMax <= upper;
        return new Row(key.op(), key.role(), (long) count, quantile(delta, count, 0.50), quantile(delta, count, 0.99),
            quantile(delta, count, 0.999), exact ? agentMax : upper, exact);
    }

    private static double quantile(TreeMap<Double, Double> cumulative, double count, double q) {
        for (Map.Entry<Double, Double> e : cumulative.entrySet()) {
            if (e.getValue() >= q * count) {
                return e.getKey();
            }
        }
        return Double.POSITIVE_INFINITY;
    }
}
