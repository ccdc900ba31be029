package io.stallscope.analyzer.model;

/**
 * A Stallscope agent event ("stallscope.RecordsAppend"): an operation on the owning thread's lane, over
 * [start, end] in epoch nanoseconds. {@code partition} is -1 and {@code bytes} -1 when the op has none.
 */
public record Span(String type, long start, long end, int thread, String op, String threadRole, String topic,
                   int partition, long bytes, String path, boolean failed) {

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
