package io.stallscope.it.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The agent's op histograms, read from a Prometheus scrape, as a table of count, p50, p99 and max per
 * op and thread role. Percentiles are the upper bounds of the buckets they fall in.
 */
public final class OpTable {
    private static final Pattern BUCKET = Pattern.compile(
        "^stallscope_op_seconds_bucket\\{op=\"([^\"]+)\",role=\"([^\"]+)\",le=\"([^\"]+)\"} (\\S+)$");
    private static final Pattern MAX = Pattern.compile(
        "^stallscope_op_seconds_max\\{op=\"([^\"]+)\",role=\"([^\"]+)\"} (\\S+)$");

    /** One op on one thread role. */
    public record Row(String op, String role, long count, double p50, double p99, double max) {
    }

    private OpTable() {
    }

    public static List<Row> parse(String scrape) {
        Map<String, TreeMap<Double, Double>> buckets = new TreeMap<>();
        Map<String, Double> max = new TreeMap<>();
        for (String line : scrape.split("\n")) {
            Matcher b = BUCKET.matcher(line);
            if (b.matches()) {
                double le = b.group(3).equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(b.group(3));
                buckets.computeIfAbsent(b.group(1) + "|" + b.group(2), k -> new TreeMap<>())
                    .put(le, Double.parseDouble(b.group(4)));
                continue;
            }
            Matcher m = MAX.matcher(line);
            if (m.matches()) {
                max.put(m.group(1) + "|" + m.group(2), Double.parseDouble(m.group(3)));
            }
        }
        List<Row> rows = new ArrayList<>();
        buckets.forEach((key, cumulative) -> {
            double count = cumulative.lastEntry().getValue();
            if (count > 0) {
                String[] parts = key.split("\\|");
                rows.add(new Row(parts[0], parts[1], (long) count, quantile(cumulative, count, 0.50),
                    quantile(cumulative, count, 0.99), max.getOrDefault(key, Double.NaN)));
            }
        });
        return rows;
    }

    private static double quantile(TreeMap<Double, Double> cumulative, double count, double q) {
        for (Map.Entry<Double, Double> e : cumulative.entrySet()) {
            if (e.getValue() >= q * count) {
                return e.getKey();
            }
        }
        return Double.POSITIVE_INFINITY;
    }

    public static String format(List<Row> rows) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%-17s %-16s %9s %10s %10s %10s%n", "op", "role", "count", "p50<=", "p99<=", "max"));
        for (Row r : rows) {
            sb.append(String.format(Locale.ROOT, "%-17s %-16s %9d %10s %10s %10s%n", r.op(), r.role(), r.count(),
                human(r.p50()), human(r.p99()), human(r.max())));
        }
        return sb.toString();
    }

    static String human(double seconds) {
        if (Double.isNaN(seconds)) {
            return "-";
        }
        if (Double.isInfinite(seconds)) {
            return ">10s";
        }
        if (seconds < 1e-3) {
            return String.format(Locale.ROOT, "%.0fus", seconds * 1e6);
        }
        if (seconds < 1) {
            return String.format(Locale.ROOT, "%.1fms", seconds * 1e3);
        }
        return String.format(Locale.ROOT, "%.2fs", seconds);
    }
}
