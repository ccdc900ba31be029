package io.stallscope.it.mitigate;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** One scrape of the agent's Prometheus endpoint, summed by metric name and label subset. */
record Scrape(String text) {
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})?\\s+(\\S+)");

    static Scrape of(int port) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create("http://127.0.0.1:" + port + "/metrics").toURL()
            .openConnection();
        c.setConnectTimeout(3000);
        c.setReadTimeout(10000);
        try (InputStream in = c.getInputStream()) {
            return new Scrape(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } finally {
            c.disconnect();
        }
    }

    /** Sum of the samples of {@code name} whose labels include all of {@code labels}. */
    double sum(String name, Map<String, String> labels) {
        double total = 0;
        for (String line : text.split("\n")) {
            Matcher m = SAMPLE.matcher(line);
            if (line.startsWith("#") || !m.find() || !m.group(1).equals(name)) {
                continue;
            }
            String l = m.group(2) == null ? "" : m.group(2);
            if (labels.entrySet().stream().allMatch(e -> l.contains(e.getKey() + "=\"" + e.getValue() + "\""))) {
                total += Double.parseDouble(m.group(3));
            }
        }
        return total;
    }

    /** Cumulative bucket counts of the op's histogram by upper bound (seconds), +Inf last. */
    java.util.TreeMap<Double, Double> buckets(String op, String role) {
        java.util.TreeMap<Double, Double> out = new java.util.TreeMap<>();
        // the le label alone: role="..." also ends in le="
        Pattern le = Pattern.compile("(?:^|,)le=\"([^\"]+)\"");
        for (String line : text.split("\n")) {
            Matcher m = SAMPLE.matcher(line);
            if (line.startsWith("#") || !m.find() || !m.group(1).equals("stallscope_op_seconds_bucket")) {
                continue;
            }
            String l = m.group(2) == null ? "" : m.group(2);
            Matcher b = le.matcher(l);
            if (l.contains("op=\"" + op + "\"") && l.contains("role=\"" + role + "\"") && b.find()) {
                double bound = b.group(1).equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(b.group(1));
                out.merge(bound, Double.parseDouble(m.group(3)), Double::sum);
            }
        }
        return out;
    }

    /**
     * The quantile (e.g. 0.99) of an op's durations between an earlier scrape and this one, in ms: the
     * upper bound of the histogram bucket it falls in (so "at most"); NaN when there was no such op.
     */
    double quantileMsSince(Scrape earlier, String op, String role, double q) {
        java.util.TreeMap<Double, Double> now = buckets(op, role);
        java.util.TreeMap<Double, Double> before = earlier.buckets(op, role);
        double total = now.isEmpty() ? 0 : now.lastEntry().getValue() - before.getOrDefault(now.lastKey(), 0.0);
        if (total <= 0) {
            return Double.NaN;
        }
        for (Map.Entry<Double, Double> e : now.entrySet()) {
            if (e.getValue() - before.getOrDefault(e.getKey(), 0.0) >= q * total) {
                return e.getKey() * 1000;
            }
        }
        return Double.POSITIVE_INFINITY;
    }

    /** How many times the op ran between an earlier scrape and this one. */
    double countSince(Scrape earlier, String op, String role) {
        return ops(op, role) - earlier.ops(op, role);
    }

    double ops(String op, String role) {
        return sum("stallscope_op_seconds_count", Map.of("op", op, "role", role));
    }

    double event(String mitigation, String event) {
        return sum("stallscope_mitigation_events_total", Map.of("mitigation", mitigation, "event", event));
    }

    /**
     * Every (op, role) of the agent's histograms that ran between an earlier scrape and this one, one
     * line each: "op role count p99-bucket-ms total-ms", busiest first by total time.
     */
    java.util.List<String> opsSince(Scrape earlier) {
        Pattern opRole = Pattern.compile("op=\"([^\"]+)\".*role=\"([^\"]+)\"|role=\"([^\"]+)\".*op=\"([^\"]+)\"");
        java.util.Set<java.util.List<String>> pairs = new java.util.TreeSet<>(java.util.Comparator.comparing(Object::toString));
        for (String line : text.split("\n")) {
            Matcher m = SAMPLE.matcher(line);
            if (line.startsWith("#") || !m.find() || !m.group(1).equals("stallscope_op_seconds_count") || m.group(2) == null) {
                continue;
            }
            Matcher l = opRole.matcher(m.group(2));
            if (l.find()) {
                pairs.add(l.group(1) != null ? java.util.List.of(l.group(1), l.group(2)) : java.util.List.of(l.group(4), l.group(3)));
            }
        }
        java.util.List<Object[]> rows = new java.util.ArrayList<>();
        for (java.util.List<String> p : pairs) {
            double n = countSince(earlier, p.get(0), p.get(1));
            if (n > 0) {
                Map<String, String> labels = Map.of("op", p.get(0), "role", p.get(1));
                double totalMs = (sum("stallscope_op_seconds_sum", labels) - earlier.sum("stallscope_op_seconds_sum", labels)) * 1000;
                rows.add(new Object[] {p.get(0), p.get(1), n, quantileMsSince(earlier, p.get(0), p.get(1), 0.99), totalMs});
            }
        }
        rows.sort(java.util.Comparator.comparingDouble(r -> -(double) r[4]));
        return rows.stream().map(r -> String.format("%s %s count %.0f p99 <= %.0f ms total %.0f ms", r)).toList();
    }

    /** How many times the op took longer than {@code ms} (a bucket bound) between an earlier scrape and this one. */
    double countAboveSince(Scrape earlier, String op, String role, double ms) {
        java.util.TreeMap<Double, Double> now = buckets(op, role);
        java.util.TreeMap<Double, Double> before = earlier.buckets(op, role);
        Double bound = now.floorKey(ms / 1000 + 1e-12);
        if (bound == null || now.isEmpty()) {
            return 0;
        }
        double total = now.lastEntry().getValue() - before.getOrDefault(now.lastKey(), 0.0);
        return total - (now.get(bound) - before.getOrDefault(bound, 0.0));
    }
}
