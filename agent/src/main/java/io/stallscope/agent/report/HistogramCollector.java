package io.stallscope.agent.report;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.util.Map;

/**
 * Serves the op histograms in the scrape of Micrometer's Prometheus registry, as classic Prometheus
 * histograms built with the Prometheus client's own model: stallscope_op_seconds{op,role},
 * stallscope_op_topic_seconds{op,role,topic,partition} and the gauge stallscope_op_seconds_max{op,role}.
 */
final class HistogramCollector implements MultiCollector {
    private static final double[] UPPER_BOUNDS = upperBounds();
    private final OpMetrics metrics;

    HistogramCollector(OpMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public MetricSnapshots collect() {
        HistogramSnapshot.Builder ops = HistogramSnapshot.builder().name(OpMetrics.OP_SECONDS)
            .help("Time spent in an instrumented storage-path operation");
        GaugeSnapshot.Builder max = GaugeSnapshot.builder().name(OpMetrics.OP_SECONDS + "_max")
            .help("Longest operation in the last one to two minutes, in seconds");
        metrics.forEachHistogram((labels, histogram) -> {
            Labels l = Labels.of("op", labels[0], "role", labels[1]);
            ops.dataPoint(point(histogram, l));
            max.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(l)
                .value(histogram.maxNanos() / 1e9).build());
        });
        MetricSnapshots.Builder out = MetricSnapshots.builder().metricSnapshot(ops.build()).metricSnapshot(max.build());
        Map<String[], OpHistogram> perTopic = metrics.topicHistograms();
        if (!perTopic.isEmpty()) {
            HistogramSnapshot.Builder topics = HistogramSnapshot.builder().name(OpMetrics.OP_TOPIC_SECONDS)
                .help("Time spent in an instrumented operation, per topic-partition (topic.labels=true)");
            perTopic.forEach((labels, histogram) -> topics.dataPoint(point(histogram,
                Labels.of("op", labels[0], "role", labels[1], "topic", labels[2], "partition", labels[3]))));
            out.metricSnapshot(topics.build());
        }
        return out.build();
    }

    private static HistogramSnapshot.HistogramDataPointSnapshot point(OpHistogram histogram, Labels labels) {
        long[] counts = histogram.bucketCounts();
        return HistogramSnapshot.HistogramDataPointSnapshot.builder()
            .labels(labels)
            .classicHistogramBuckets(ClassicHistogramBuckets.of(UPPER_BOUNDS, counts))
            .sum(histogram.sumNanos() / 1e9)
            .build();
    }

    private static double[] upperBounds() {
        double[] out = new double[OpHistogram.BOUNDS.length + 1];
        for (int i = 0; i < OpHistogram.BOUNDS.length; i++) {
            out[i] = OpHistogram.BOUNDS[i] / 1e9;
        }
        out[out.length - 1] = Double.POSITIVE_INFINITY;
        return out;
    }
}
