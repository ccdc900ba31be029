package io.stallscope.it.broker;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One scrape of the agent's Prometheus endpoint (text format 0.0.4), parsed into series. The one parser the
 * tests share: a line that is neither a comment nor a sample fails the parse, since the agent must never
 * serve one.
 */
public final class PrometheusScrape {
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})?\\s+(\\S+)");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");
    public static final String OP_SECONDS = "stallscope_op_seconds";

    /** One sample line: metric name, labels in their order, value. */
    public record Series(String name, Map<String, String> labels, double value) {
        boolean has(Map<String, String> subset) {
            return labels.entrySet().containsAll(subset.entrySet());
        }
    }

    private final String text;
    private final List<Series> series;

    private PrometheusScrape(String text, List<Series> series) {
        this.text = text;
        this.series = series;
    }

    /** GET http://127.0.0.1:PORT/metrics. */
    public static PrometheusScrape scrape(int port) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create("http://127.0.0.1:" + port + "/metrics").toURL().openConnection();
        c.setConnectTimeout(3000);
        c.setReadTimeout(10000);
        try (InputStream in = c.getInputStream()) {
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } finally {
            c.disconnect();
        }
    }

    public static PrometheusScrape parse(String text) {
        List<Series> out = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.startsWith("#") || line.isBlank()) {
                continue;
            }
            Matcher m = SAMPLE.matcher(line);
            if (!m.find()) {
                throw new IllegalArgumentException("not a sample line: " + line);
            }
            Map<String, String> labels = new LinkedHashMap<>();
            if (m.group(2) != null) {
                Matcher l = LABEL.matcher(m.group(2));
                while (l.find()) {
                    labels.put(l.group(1), l.group(2).replace("\\\"", "\"").replace("\\\\", "\\"));
                }
            }
            out.add(new Series(m.group(1), Collections.unmodifiableMap(labels), Double.parseDouble(m.group(3))));
        }
        return new PrometheusScrape(text, List.copyOf(out));
    }

    public String text() {
        return text;
    }

    public boolean has(String name) {
        return series.stream().anyMatch(s -> s.name().equals(name));
    }

    public List<Series> series(String name) {
        return series.stream().filter(s -> s.name().equals(name)).toList();
    }

    /** Sum of a metric's series whose labels include all the given ones. */
    public double sum(String name, Map<String, String> labels) {
        return series(name).stream().filter(s -> s.has(labels)).mapToDouble(Series::value).sum();
    }

    public Set<String> labelNames(String name) {
        Set<String> out = new TreeSet<>();
        series(name).forEach(s -> out.addAll(s.labels().keySet()));
        return out;
    }

    public Set<String> labelValues(String name, String label) {
        Set<String> out = new TreeSet<>();
        series(name).forEach(s -> {
            if (s.labels().containsKey(label)) {
                out.add(s.labels().get(label));
            }
        });
        return out;
    }

    /** How many times an op ran on threads of a role (all partitions). */
    public double ops(String op, String role) {
        return sum(OP_SECONDS + "_count", Map.of("op", op, "role", role));
    }

    /** How many times an op ran between an earlier scrape and this one. */
    public double countSince(PrometheusScrape earlier, String op, String role) {
        return ops(op, role) - earlier.ops(op, role);
    }

    /** A mitigation's event counter, e.g. ("prefetch", "warmed"). */
    public double event(String mitigation, String event) {
        return sum("stallscope_mitigation_events_total", Map.of("mitigation", mitigation, "event", event));
    }

    /** Cumulative bucket counts of an op's histogram by upper bound in seconds (+Inf last), summed over partitions. */
    public TreeMap<Double, Double> buckets(String op, String role) {
        TreeMap<Double, Double> out = new TreeMap<>();
        for (Series s : series(OP_SECONDS + "_bucket")) {
            String le = s.labels().get("le");
            if (le != null && s.has(Map.of("op", op, "role", role))) {
                out.merge(le.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le), s.value(), Double::sum);
            }
        }
        return out;
    }

    /**
     * The quantile (e.g. 0.99) of an op's durations between an earlier scrape and this one, in ms: the upper
     * bound of the histogram bucket it falls in (so "at most"); NaN when the op did not run.
     */
    public double quantileMsSince(PrometheusScrape earlier, String op, String role, double q) {
        TreeMap<Double, Double> now = buckets(op, role);
        TreeMap<Double, Double> before = earlier.buckets(op, role);
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

    /** How many times an op took longer than {@code ms} (a bucket bound) between an earlier scrape and this one. */
    public double countAboveSince(PrometheusScrape earlier, String op, String role, double ms) {
        TreeMap<Double, Double> now = buckets(op, role);
        TreeMap<Double, Double> before = earlier.buckets(op, role);
        Double bound = now.floorKey(ms / 1000 + 1e-12);
        if (bound == null || now.isEmpty()) {
            return 0;
        }
        double total = now.lastEntry().getValue() - before.getOrDefault(now.lastKey(), 0.0);
        return total - (now.get(bound) - before.getOrDefault(bound, 0.0));
    }

    /**
     * Every (op, role) of the agent's histograms that ran between an earlier scrape and this one, one line
     * each: "op role count N p99 <= B ms total T ms", busiest first by total time.
     */
    public List<String> opsSince(PrometheusScrape earlier) {
        Set<List<String>> pairs = new TreeSet<>(java.util.Comparator.comparing(Object::toString));
        for (Series s : series(OP_SECONDS + "_count")) {
            if (s.labels().containsKey("op") && s.labels().containsKey("role")) {
                pairs.add(List.of(s.labels().get("op"), s.labels().get("role")));
            }
        }
        List<Object[]> rows = new ArrayList<>();
        for (List<String> p : pairs) {
            double n = countSince(earlier, p.get(0), p.get(1));
            if (n > 0) {
                Map<String, String> labels = Map.of("op", p.get(0), "role", p.get(1));
                double totalMs = (sum(OP_SECONDS + "_sum", labels) - earlier.sum(OP_SECONDS + "_sum", labels)) * 1000;
                rows.add(new Object[] {p.get(0), p.get(1), n, quantileMsSince(earlier, p.get(0), p.get(1), 0.99), totalMs});
            }
        }
        rows.sort(java.util.Comparator.comparingDouble(r -> -(double) r[4]));
        return rows.stream().map(r -> String.format(java.util.Locale.ROOT, "%s %s count %.0f p99 <= %.0f ms total %.0f ms", r)).toList();
    }
}
