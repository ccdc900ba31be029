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
    /**
     * The VM operation the safepoint ran (G1CollectFull, Deoptimize, ThreadDump...), "unknown" when JFR's event of it
     * was lost, "unnamed" when timed from HotSpot's counters, which do not name it.
     */
    final String operation;
    /** Threads still running Java code when the VM asked, and after its first poll; -1 when the JVM did not say. */
    final int initialRunning;
    final int totalThreads;
    /** How many safepoints this stands for: 1, or more when HotSpot's counters grew by several between two reads. */
    final int safepoints;
    /** How far off its place in time may be: JFR's clock against nanoTime, or the counters' poll. */
    final long slackNanos;
    /**
     * For a merged sync ({@code safepoints} > 1), the nanoTime of the counters' read before it: its safepoints fell
     * between that read and the one that saw them; 0 otherwise.
     */
    final long windowStartNanos;

    SafepointSync(long safepointId, long startEpochNanos, long syncNanos, String operation, int initialRunning,
                  int totalThreads) {
        this(safepointId, startEpochNanos, syncNanos, operation, initialRunning, totalThreads, 1,
            SafepointHolder.SLACK_NANOS);
    }

    SafepointSync(long safepointId, long startEpochNanos, long syncNanos, String operation, int initialRunning,
                  int totalThreads, int safepoints, long slackNanos) {
        this(safepointId, startEpochNanos, syncNanos, operation, initialRunning, totalThreads, safepoints, slackNanos, 0);
    }

    SafepointSync(long safepointId, long startEpochNanos, long syncNanos, String operation, int initialRunning,
                  int totalThreads, int safepoints, long slackNanos, long windowStartNanos) {
        this.windowStartNanos = windowStartNanos;
        this.safepointId = safepointId;
        this.startEpochNanos = startEpochNanos;
        this.syncNanos = syncNanos;
        this.operation = operation;
        this.initialRunning = initialRunning;
        this.totalThreads = totalThreads;
        this.safepoints = safepoints;
        this.slackNanos = slackNanos;
    }

    public long syncNanos() {
        return syncNanos;
    }

    public String operation() {
        return operation;
    }
}
