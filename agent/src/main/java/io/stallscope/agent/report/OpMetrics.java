package io.stallscope.agent.report;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.model.OpKind;
import io.stallscope.agent.model.ThreadRole;
import io.stallscope.agent.model.TopicPartition;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.BiConsumer;

/**
 * The agent's meters. The series of an op and thread role exist from the start for the roles the op is
 * declared to run on ({@link OpKind#roles()}), and for any other role from its first op: a fresh broker
 * exports no series that cannot occur. Each pair's meters sit in one slot of an array indexed by op and
 * role, so the hot path records without a map lookup.
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
    /** stallscope_blocked_behind_seconds_total: a slow op's time overlapped by the op it most likely waited behind. */
    public static final String BLOCKED_BEHIND = "stallscope.blocked.behind";
    /** stallscope_slow_ops_dropped_total: slow ops whose reporting was dropped, the agent's reporting thread being behind. */
    public static final String SLOW_OPS_DROPPED = "stallscope.slow.ops.dropped";
    /**
     * stallscope_remote_index_cache_total{result="hit"|"miss"}: lookups of Kafka's remote index cache, counted by
     * the remote_index_lookup point (not timed: two series, where an op would need a histogram per role).
     */
    public static final String REMOTE_INDEX_CACHE = "stallscope.remote.index.cache";

    static final String OTHER_TOPIC = "_other";
    private static final int ROLES = ThreadRole.values().length;

    private final MeterRegistry registry;
    private final AtomicReferenceArray<Series> series = new AtomicReferenceArray<>(Op.COUNT * ROLES);
    private final List<BiConsumer<String[], OpHistogram>> seriesListeners = new CopyOnWriteArrayList<>();
    private final Counter[] adviceErrors = new Counter[Op.COUNT];
    private final Counter slowOpsDropped;
    private final Counter indexCacheHits;
    private final Counter indexCacheMisses;
    private final boolean topicLabels;
    private final int topicLabelsMax;
    /** The topic-partitions that have their own labels: at most topic.labels.max, first come. */
    private final Set<String> labelledPartitions = ConcurrentHashMap.newKeySet();
    private final Map<String, OpHistogram> topicHistograms = new ConcurrentHashMap<>();
    private final Map<String, String[]> topicLabelValues = new ConcurrentHashMap<>();

    /** The meters of one op on one role. */
    private static final class Series {
        final String[] labels;
        final OpHistogram histogram = new OpHistogram();
        final Counter bytes;
        final Counter errors;
        final Counter slow;
        /** segment_flush only. */
        final Counter noopFlushes;

        Series(MeterRegistry registry, int op, ThreadRole role) {
            labels = new String[] {OpKind.name(op), role.label()};
            Tags tags = Tags.of("op", labels[0], "role", labels[1]);
            bytes = Counter.builder(OP_BYTES).tags(tags).baseUnit("bytes")
                .description("Bytes moved by the op, where it has a byte count").register(registry);
            errors = Counter.builder(OP_ERRORS).tags(tags)
                .description("Ops that ended in an exception, or waits whose task was cancelled in the queue "
                    + "(still timed)").register(registry);
            slow = Counter.builder(SLOW_OPS).tags(tags)
                .description("Ops at or above their slow threshold").register(registry);
            noopFlushes = op != Op.SEGMENT_FLUSH ? null : Counter.builder(FLUSH_NOOP).tags(tags)
                .description("Segment flushes with nothing written since the segment's last flush (KAFKA-132)")
                .register(registry);
        }
    }

    public OpMetrics(MeterRegistry registry, boolean topicLabels, int topicLabelsMax) {
        this.registry = registry;
        this.topicLabels = topicLabels;
        this.topicLabelsMax = topicLabelsMax;
        for (OpKind kind : OpKind.values()) {
            for (ThreadRole role : kind.roles()) {
                series(kind.id(), role.ordinal());
            }
            adviceErrors[kind.id()] = Counter.builder(ADVICE_ERRORS).tag("op", kind.label())
                .description("Exceptions inside the agent's own advice, suppressed").register(registry);
        }
        slowOpsDropped = Counter.builder(SLOW_OPS_DROPPED)
            .description("Slow ops whose line and pairing were dropped: the agent's reporting thread was behind")
            .register(registry);
        indexCacheHits = indexCacheCounter(registry, "hit");
        indexCacheMisses = indexCacheCounter(registry, "miss");
        if (registry instanceof PrometheusMeterRegistry) {
            ((PrometheusMeterRegistry) registry).getPrometheusRegistry().register(new HistogramCollector(this));
        }
    }

    public boolean topicLabels() {
        return topicLabels;
    }

    public void record(int op, int role, long durationNanos, long byteCount, boolean failed) {
        Series s = series(op, role);
        s.histogram.record(durationNanos);
        if (byteCount > 0) {
            s.bytes.increment(byteCount);
        }
        if (failed) {
            s.errors.increment();
        }
    }

    /**
     * Only with topic.labels=true: a histogram per op, role and topic-partition. The first topic.labels.max
     * topic-partitions seen get their own labels; the rest share topic="_other" per op and role.
     */
    public void recordTopic(int op, int role, TopicPartition tp, long durationNanos) {
        String topic = tp == null ? "" : tp.topic();
        String partition = tp == null ? "" : Integer.toString(tp.partition());
        String key = op + "/" + role + "/" + topic + "/" + partition;
        OpHistogram h = topicHistograms.get(key);
        if (h == null) {
            if (!admit(topic + "/" + partition)) {
                topic = OTHER_TOPIC;
                partition = "";
                key = op + "/" + role + "/" + OTHER_TOPIC;
            }
            topicLabelValues.putIfAbsent(key, new String[] {OpKind.name(op), ThreadRole.of(role).label(), topic, partition});
            h = topicHistograms.computeIfAbsent(key, k -> new OpHistogram());
        }
        h.record(durationNanos);
    }

    private boolean admit(String partitionKey) {
        if (labelledPartitions.contains(partitionKey)) {
            return true;
        }
        synchronized (labelledPartitions) {
            if (labelledPartitions.size() >= topicLabelsMax) {
                return labelledPartitions.contains(partitionKey);
            }
            labelledPartitions.add(partitionKey);
            return true;
        }
    }

    public void slow(int op, int role) {
        series(op, role).slow.increment();
    }

    /**
     * A slow op waited behind another thread's op for {@code overlapNanos}. Series appear only when a pairing does
     * (the slow path), so a broker that never stalls exports none.
     */
    public void blockedBehind(int op, int role, int behindOp, String behindRole, String scope, long overlapNanos) {
        Counter.builder(BLOCKED_BEHIND).baseUnit("seconds")
            .tags("op", OpKind.name(op), "role", ThreadRole.of(role).label(), "behind_op", OpKind.name(behindOp),
                "behind_role", behindRole, "scope", scope)
            .description("Time slow ops overlapped the op they most likely waited behind (same file, log or device)")
            .register(registry).increment(overlapNanos / 1e9);
    }

    /** A lookup of Kafka's remote index cache: a hit, or a miss (its load is a remote_index_load). */
    public void indexCacheLookup(boolean hit) {
        (hit ? indexCacheHits : indexCacheMisses).increment();
    }

    private static Counter indexCacheCounter(MeterRegistry registry, String result) {
        return Counter.builder(REMOTE_INDEX_CACHE).tag("result", result)
            .description("Lookups of Kafka's remote index cache (RemoteIndexCache.getIndexEntry): hit, or miss (it"
                + " loaded the segment's indexes, a remote_index_load)")
            .register(registry);
    }

    public void slowOpDropped() {
        slowOpsDropped.increment();
    }

    public void noopFlush(int role) {
        series(Op.SEGMENT_FLUSH, role).noopFlushes.increment();
    }

    public void adviceFailed(int op) {
        adviceErrors[op].increment();
    }

    public OpHistogram histogram(int op, int role) {
        return series(op, role).histogram;
    }

    /** Whether the op has series on this role (declared, or it has occurred there). */
    public boolean hasSeries(int op, int role) {
        return series.get(op * ROLES + role) != null;
    }

    /** Told of each op and role pair that first occurs from now on, on the thread of its first op. */
    public void addSeriesListener(BiConsumer<String[], OpHistogram> listener) {
        seriesListeners.add(listener);
    }

    public void removeSeriesListener(BiConsumer<String[], OpHistogram> listener) {
        seriesListeners.remove(listener);
    }

    /** A histogram with its op and role labels. */
    public static final class Labelled {
        private final String[] labels;
        private final OpHistogram histogram;

        Labelled(String[] labels, OpHistogram histogram) {
            this.labels = labels;
            this.histogram = histogram;
        }

        public String op() {
            return labels[0];
        }

        public String role() {
            return labels[1];
        }

        public OpHistogram histogram() {
            return histogram;
        }
    }

    /** Every op and role pair that has series now, in op then role order. */
    public List<Labelled> histograms() {
        List<Labelled> out = new ArrayList<>();
        forEachHistogram((labels, h) -> out.add(new Labelled(labels, h)));
        return out;
    }

    /** Every op and role histogram with its labels {op, role}, in op then role order. */
    void forEachHistogram(BiConsumer<String[], OpHistogram> action) {
        for (int i = 0; i < series.length(); i++) {
            Series s = series.get(i);
            if (s != null) {
                action.accept(s.labels, s.histogram);
            }
        }
    }

    /** Per-topic histograms keyed by their labels {op, role, topic, partition}. */
    Map<String[], OpHistogram> topicHistograms() {
        if (topicHistograms.isEmpty()) {
            return Collections.emptyMap();
        }
        Map<String[], OpHistogram> out = new LinkedHashMap<>();
        topicHistograms.forEach((key, h) -> out.put(topicLabelValues.get(key), h));
        return out;
    }

    private Series series(int op, int role) {
        int slot = op * ROLES + role;
        Series s = series.get(slot);
        return s != null ? s : create(op, role, slot);
    }

    private synchronized Series create(int op, int role, int slot) {
        Series s = series.get(slot);
        if (s == null) {
            s = new Series(registry, op, ThreadRole.of(role));
            series.set(slot, s);
            for (BiConsumer<String[], OpHistogram> listener : seriesListeners) {
                listener.accept(s.labels, s.histogram);
            }
        }
        return s;
    }
}
