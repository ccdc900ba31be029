package io.stallscope.agent.safepoint;

/**
 * One safepoint's synchronization: from the VM asking every Java thread to stop to the last one stopping. All the
 * threads that had stopped waited that long for the ones still running Java code, so the whole broker stood still.
 */
public final class SafepointSync {
    final long safepointId;
    /** Epoch nanoseconds at which the VM began to synchronize. */
    final long startEpochNanos;
    final long syncNanos;
    /** The VM operation the safepoint ran (G1CollectFull, Deoptimize, ThreadDump...), or "unknown". */
    final String operation;
    /** Threads still running Java code when the VM asked, and after its first poll; -1 when the JVM did not say. */
    final int initialRunning;
    final int totalThreads;

    SafepointSync(long safepointId, long startEpochNanos, long syncNanos, String operation, int initialRunning,
                  int totalThreads) {
        this.safepointId = safepointId;
        this.startEpochNanos = startEpochNanos;
        this.syncNanos = syncNanos;
        this.operation = operation;
        this.initialRunning = initialRunning;
        this.totalThreads = totalThreads;
    }

    public long syncNanos() {
        return syncNanos;
    }

    public String operation() {
        return operation;
    }
}
