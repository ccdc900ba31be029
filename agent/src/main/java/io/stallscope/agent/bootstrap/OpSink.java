package io.stallscope.agent.bootstrap;

/** Receives every timed operation. Implemented by the agent; called from inlined advice. */
public interface OpSink {
    /**
     * @param subject what the op worked on (a segment, a FileRecords, an index, a path...), resolved
     *                to a topic-partition lazily, only when a report needs it
     * @param bytes   bytes moved, or -1 when the op has no byte count
     */
    void record(int op, long startNanos, long durationNanos, Object subject, long bytes,
                Throwable thrown, ThreadState thread);

    /** An exception escaped the agent's own code inside advice: count it, never rethrow. */
    void adviceFailed(int op, Throwable error);

    /**
     * A lookup of Kafka's remote index cache ended (RemoteIndexCache.getIndexEntry): a hit, or a miss (the cache
     * loaded the segment's indexes on this thread inside it). Counted, not timed; a sink that does not count them
     * ignores it.
     */
    default void indexCacheLookup(boolean hit) {
    }
}
