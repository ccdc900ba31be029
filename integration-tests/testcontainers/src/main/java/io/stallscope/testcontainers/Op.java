package io.stallscope.testcontainers;

/** The Kafka storage operations the agent times, by the name its metrics' {@code op} label carries. */
public enum Op {
    SEGMENT_FLUSH, RECORDS_APPEND, INDEX_RESIZE, TRANSFER_TO, LOG_ROLL, SNAPSHOT_TAKE, SNAPSHOT_WRITE,
    SNAPSHOT_FLUSH, SEGMENT_INACTIVE, SEGMENT_READ, TLS_TRANSFER;

    /** The agent's name for it: the {@code op} label and the {@code ops} option's list entry. */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
