package io.stallscope.analyzer.model;

/**
 * A Stallscope agent event ("stallscope.RecordsAppend"): an operation on the owning thread's lane, over
 * [start, end] in epoch nanoseconds. {@code partition} is -1 and {@code bytes} -1 when the op has none.
 * {@code behind}: what the agent recorded this op ran behind, or null (an agent without those fields, or none).
 */
public record Span(String type, long start, long end, int thread, String op, String threadRole, String topic,
                   int partition, long bytes, String path, boolean failed, Behind behind) {

    /**
     * The agent's "blocked behind" fields: the op ({@code behindOp}) another thread ({@code behindThread}) ran at
     * the same time for {@code overlapMs}, sharing {@code scope} (file, log or device) with this one.
     */
    public record Behind(String op, String thread, long overlapMs, String scope) {
        /** Null unless the event names an op it ran behind. */
        public static Behind of(String op, String thread, long overlapMs, String scope) {
            return op == null || op.isEmpty() ? null : new Behind(op, thread, overlapMs, scope);
        }
    }

    public Span(String type, long start, long end, int thread, String op, String threadRole, String topic,
                int partition, long bytes, String path, boolean failed) {
        this(type, start, end, thread, op, threadRole, topic, partition, bytes, path, failed, null);
    }

    public long duration() {
        return Math.max(0, end - start);
    }

    /** "orders-7", the topic alone, or null. */
    public String topicPartition() {
        if (topic == null || topic.isEmpty()) return null;
        return partition >= 0 ? topic + "-" + partition : topic;
    }

    /** The op's own name ("records_append"), else the event type without its "stallscope." prefix. */
    public String opName() {
        if (op != null && !op.isEmpty()) return op;
        return type.startsWith("stallscope.") ? type.substring("stallscope.".length()) : type;
    }
}
