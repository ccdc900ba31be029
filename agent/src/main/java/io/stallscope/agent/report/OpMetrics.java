package io.stallscope.agent.report;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.model.ThreadRole;
import io.stallscope.agent.model.TopicPartition;

import java.util.Collections;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

/**
 * The agent's meters. Latency histograms per op and thread role are {@link OpHistogram}s created up
 * front in arrays, so the hot path records without a lookup; counters are Micrometer's.
 */
public final class OpMetrics {
    public static final String OP_SECONDS = "stallscope_op_seconds";
    /** A second name: Prometheus wants one set of label keys per metric name. */
    public static final String OP_TOPIC_SECONDS = "stallscope_op_topic_seconds";
    public static final String OP_BYTES = "stallscope.op.bytes";
    public static final String OP_ERRORS = "stallscope.op.errors";
    public static final String FLUSH_NOOP = "stallscope.flush.noop";
    public static final String SLOW_OPS = "stallscope.slow.ops";
    public static final String ADVICE_ERRORS = "stallscope.advice.errors";

    private static final String OTHER_TOPIC = "_other";
    private static final int ROLES = ThreadRole.values().length;

    private final OpHistogram[][] histograms = new OpHistogram[Op.COUNT][ROLES];
    private final Counter[][] bytes = new Counter[Op.COUNT][ROLES];
    private final Counter[][] errors = new Counter[Op.COUNT][ROLES];
    private final Counter[][] slow = new Counter[Op.COUNT][ROLES];
    private final Counter[] noopFlushes = new Counter[ROLES];
    private final Counter[] adviceErrors = new Counter[Op.COUNT];
    private final boolean topicLabels;
    private final int topicLabelsMax;
    private final Map<String, OpHistogram> topicHistograms = new ConcurrentHashMap<>();
    private final Map<String, String[]> topicLabelValues = new ConcurrentHashMap<>();

    public OpMetrics(MeterRegistry registry, boolean topicLabels, int topicLabelsMax) {
        this.topicLabels = topicLabels;
        this.topicLabelsMax = topicLabelsMax;
        for (int op = 0; op < Op.COUNT; op++) {
            for (ThreadRole role : ThreadRole.values()) {
                Tags tags = Tags.of("op", Op.name(op), "role", role.label());
                histograms[op][role.ordinal()] = new OpHistogram();
                bytes[op][role.ordinal()] = Counter.builder(OP_BYTES).tags(tags).baseUnit("bytes")
                    .description("Bytes moved by the op, where it has a byte count").register(registry);
                errors[op][role.ordinal()] = Counter.builder(OP_ERRORS).tags(tags)
                    .description("Ops that ended in an exception (still timed)").register(registry);
                slow[op][role.ordinal()] = Counter.builder(SLOW_OPS).tags(tags)
                    .description("Ops at or above their slow threshold").register(registry);
            }
            adviceErrors[op] = Counter.builder(ADVICE_ERRORS).tag("op", Op.name(op))
                .description("Exceptions inside the agent's own advice, suppressed").register(registry);
        }
        for (ThreadRole role : ThreadRole.values()) {
            noopFlushes[role.ordinal()] = Counter.builder(FLUSH_NOOP).tag("op", Op.name(Op.SEGMENT_FLUSH))
                .tag("role", role.label())
                .description("Segment flushes with nothing written since the segment's last flush (KAFKA-132)")
                .register(registry);
        }
        if (registry instanceof PrometheusMeterRegistry) {
            ((PrometheusMeterRegistry) registry).getPrometheusRegistry().register(new HistogramCollector(this));
        }
    }

    public boolean topicLabels() {
        return topicLabels;
    }

    public void record(int op, int role, long durationNanos, long byteCount, boolean failed) {
        histograms[op][role].record(durationNanos);
        if (byteCount > 0) {
            bytes[op][role].increment(byteCount);
        }
        if (failed) {
            errors[op][role].increment();
        }
    }

    /** Only with topic.labels=true: a histogram per op, role and topic-partition, capped. */
    public void recordTopic(int op, int role, TopicPartition tp, long durationNanos) {
        String topic = tp == null ? "" : tp.topic();
        String partition = tp == null ? "" : Integer.toString(tp.partition());
        String key = op + "/" + role + "/" + topic + "/" + partition;
        OpHistogram h = topicHistograms.get(key);
        if (h == null) {
            if (topicHistograms.size() >= topicLabelsMax * Op.COUNT) {
                topic = OTHER_TOPIC;
                partition = "";
                key = op + "/" + role + "/" + OTHER_TOPIC;
            }
            topicLabelValues.putIfAbsent(key, new String[] {Op.name(op), ThreadRole.of(role).label(), topic, partition});
            h = topicHistograms.computeIfAbsent(key, k -> new OpHistogram());
        }
        h.record(durationNanos);
    }

    public void slow(int op, int role) {
        slow[op][role].increment();
    }

    public void noopFlush(int role) {
        noopFlushes[role].increment();
    }

    public void adviceFailed(int op) {
        adviceErrors[op].increment();
    }

    public OpHistogram histogram(int op, int role) {
        return histograms[op][role];
    }

    /** Every op and role histogram with its labels {op, role}. */
    void forEachHistogram(BiConsumer<String[], OpHistogram> action) {
        for (int op = 0; op < Op.COUNT; op++) {
            for (ThreadRole role : ThreadRole.values()) {
                action.accept(new String[] {Op.name(op), role.label()}, histograms[op][role.ordinal()]);
            }
        }
    }

    /** Per-topic histograms keyed by their labels {op, role, topic, partition}. */
    Map<String[], OpHistogram> topicHistograms() {
        if (topicHistograms.isEmpty()) {
            return Collections.emptyMap();
        }
        Map<String[], OpHistogram> out = new java.util.LinkedHashMap<>();
        topicHistograms.forEach((key, h) -> out.put(topicLabelValues.get(key), h));
        return out;
    }
}
