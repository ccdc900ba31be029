package io.stallscope.testcontainers;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** One scrape of the agent's Prometheus endpoint, parsed, with the container's slow-op log lines up to then. */
public final class MetricsSnapshot implements StallView {
    static final String OP_SECONDS = "stallscope_op_seconds";
    static final String OP_TOPIC_SECONDS = "stallscope_op_topic_seconds";

    private final PrometheusText metrics;
    private final List<String> slowOpLines;
    private final String source;
    private final Instant takenAt;

    MetricsSnapshot(PrometheusText metrics, List<String> slowOpLines, String source, Instant takenAt) {
        this.metrics = metrics;
        this.slowOpLines = Collections.unmodifiableList(new ArrayList<>(slowOpLines));
        this.source = source;
        this.takenAt = takenAt;
    }

    /** A snapshot of Prometheus text from elsewhere (a file, another scraper), with no log lines. */
    public static MetricsSnapshot of(String prometheusText, String source) {
        return new MetricsSnapshot(PrometheusText.parse(prometheusText), List.of(), source, Instant.now());
    }

    public PrometheusText metrics() {
        return metrics;
    }

    public Instant takenAt() {
        return takenAt;
    }

    @Override
    public OpHistogram histogram(Selection selection) {
        String family = selection.byTopicPartition() ? OP_TOPIC_SECONDS : OP_SECONDS;
        Map<String, String> want = selection.labels();
        TreeMap<Double, Long> buckets = new TreeMap<>();
        double sum = 0;
        boolean any = false;
        for (PrometheusText.Sample s : metrics.samples()) {
            if (!s.labels().entrySet().containsAll(want.entrySet())) {
                continue;
            }
            if (s.name().equals(family + "_bucket")) {
                String le = s.labels().get("le");
                if (le == null) {
                    throw new IllegalArgumentException(family + "_bucket without an le label in " + source + ": " + s);
                }
                double bound = le.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le);
                buckets.merge(bound, (long) s.value(), Long::sum);
                any = true;
            } else if (s.name().equals(family + "_sum")) {
                sum += s.value();
            }
        }
        if (!any) {
            return OpHistogram.empty(selection.toString());
        }
        double[] bounds = new double[buckets.size()];
        long[] counts = new long[buckets.size()];
        int i = 0;
        for (Map.Entry<Double, Long> e : buckets.entrySet()) {
            bounds[i] = e.getKey();
            counts[i++] = e.getValue();
        }
        if (!Double.isInfinite(bounds[bounds.length - 1])) {
            throw new IllegalArgumentException(family + " of " + selection + " has no +Inf bucket in " + source);
        }
        return new OpHistogram(selection.toString(), bounds, counts, sum);
    }

    /** A counter or gauge summed over the series carrying the given labels, e.g. stallscope_slow_ops_total. */
    public double sum(String name, Map<String, String> labels) {
        double total = 0;
        for (PrometheusText.Sample s : metrics.samples()) {
            if (s.name().equals(name) && s.labels().entrySet().containsAll(labels.entrySet())) {
                total += s.value();
            }
        }
        return total;
    }

    @Override
    public List<String> slowOpLines() {
        return slowOpLines;
    }

    @Override
    public String describe() {
        return source + " at " + takenAt;
    }
}
