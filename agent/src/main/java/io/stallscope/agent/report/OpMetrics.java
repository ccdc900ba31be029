package io.stallscope.agent.report;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.model.ThreadRole;
import io.stallscope.agent.model.TopicPartition;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The agent's meters. Timers per op and thread role are created up front in arrays, so the hot
 * path records without a tag lookup. Histogram buckets resolve 10 us to 10 s.
 */
public final class OpMetrics {
    public static final String OP_TIMER = "stallscope.op";
    /** A second name: Prometheus wants one set of label keys per metric name. */
    public static final String OP_TOPIC_TIMER = "stallscope.op.topic";
    public static final String OP_BYTES = "stallscope.op.bytes";
    public static final String OP_ERRORS = "stallscope.op.errors";
    public static final String FLUSH_NOOP = "stallscope.flush.noop";
    public static final String SLOW_OPS = "stallscope.slow.ops";
    public static final String ADVICE_ERRORS = "stallscope.advice.errors";
    public static final String INSTRUMENTED = "stallscope.instrumented";

    /** Bucket bounds: a 1-2.5-5 ladder from 10 us to 10 s. */
    static final Duration[] BUCKETS = buckets();
    private static final String OTHER_TOPIC = "_other";

    private final MeterRegistry registry;
    private final Timer[][] timers = new Timer[Op.COUNT][ThreadRole.values().length];
    private final Counter[][] bytes = new Counter[Op.COUNT][ThreadRole.values().length];
    private final Counter[][] errors = new Counter[Op.COUNT][ThreadRole.values().length];
    private final Counter[][] slow = new Counter[Op.COUNT][ThreadRole.values().length];
    private final Counter[] noopFlushes = new Counter[ThreadRole.values().length];
    private final Counter[] adviceErrors = new Counter[Op.COUNT];
    private final boolean topicLabels;
    private final int topicLabelsMax;
    private final ConcurrentHashMap<String, Timer> topicTimers = new ConcurrentHashMap<>();

    public OpMetrics(MeterRegistry registry, boolean topicLabels, int topicLabelsMax) {
        this.registry = registry;
        this.topicLabels = topicLabels;
        this.topicLabelsMax = topicLabelsMax;
        for (int op = 0; op < Op.COUNT; op++) {
            for (ThreadRole role : ThreadRole.values()) {
                Tags tags = Tags.of("op", Op.name(op), "role", role.label());
                timers[op][role.ordinal()] = timer(tags);
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
    }

    private Timer timer(Tags tags) {
        return timer(OP_TIMER, tags);
    }

    private Timer timer(String name, Tags tags) {
        return Timer.builder(name).tags(tags)
            .description("Time spent in an instrumented storage-path operation")
            .serviceLevelObjectives(BUCKETS)
            .minimumExpectedValue(BUCKETS[0])
            .maximumExpectedValue(BUCKETS[BUCKETS.length - 1])
            .register(registry);
    }

    public MeterRegistry registry() {
        return registry;
    }

    public boolean topicLabels() {
        return topicLabels;
    }

    public void record(int op, int role, long durationNanos, long byteCount, boolean failed) {
        timers[op][role].record(durationNanos, TimeUnit.NANOSECONDS);
        if (byteCount > 0) {
            bytes[op][role].increment(byteCount);
        }
        if (failed) {
            errors[op][role].increment();
        }
    }

    /** Only with topic.labels=true: a timer per op, role and topic-partition, capped. */
    public void recordTopic(int op, int role, TopicPartition tp, long durationNanos) {
        String topic = tp == null ? "" : tp.topic();
        String partition = tp == null ? "" : Integer.toString(tp.partition());
        String key = op + "/" + role + "/" + topic + "/" + partition;
        Timer t = topicTimers.get(key);
        if (t == null) {
            if (topicTimers.size() >= topicLabelsMax * Op.COUNT) {
                topic = OTHER_TOPIC;
                partition = "";
                key = op + "/" + role + "/" + OTHER_TOPIC;
            }
            final String finalTopic = topic;
            final String finalPartition = partition;
            t = topicTimers.computeIfAbsent(key, k -> timer(OP_TOPIC_TIMER, Tags.of("op", Op.name(op),
                "role", ThreadRole.of(role).label(), "topic", finalTopic, "partition", finalPartition)));
        }
        t.record(durationNanos, TimeUnit.NANOSECONDS);
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

    public Timer timer(int op, int role) {
        return timers[op][role];
    }

    private static Duration[] buckets() {
        long[] ladder = {1, 2, 5};
        java.util.List<Duration> out = new java.util.ArrayList<>();
        for (long decade = 10_000L; decade <= 10_000_000_000L; decade *= 10) {
            for (long step : ladder) {
                long nanos = step == 2 ? decade * 25 / 10 : decade * step;
                if (nanos <= 10_000_000_000L) {
                    out.add(Duration.ofNanos(nanos));
                }
            }
        }
        return out.toArray(new Duration[0]);
    }
}
