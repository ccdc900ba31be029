package io.stallscope.analyzer.model;

/**
 * One safepoint of the JVM that wrote file {@code file}, as its events tell it: the VM operation it was for, its
 * synchronization (time to safepoint: from when the VM asked every thread to stop to when the last one did), in epoch
 * nanoseconds, and when the whole pause ended ({@code end}, 0 unknown). {@code threads} is how many Java threads the JVM
 * had (-1 unknown), {@code runningAtStart} how many were still running Java code when it asked (-1 unknown).
 * {@code agent}: what the Stallscope agent's {@code stallscope.SafepointSync} event said, or null (no such event);
 * {@code jdkSync}: whether the sync's times are the JVM's own {@code jdk.SafepointStateSynchronization} (else the agent's).
 */
public record Safepoint(int file, long id, String operation, long syncStart, long syncEnd, long end, int threads,
                        int runningAtStart, Agent agent, boolean jdkSync) {
    /** The agent's event type name. */
    public static final String AGENT_EVENT = "stallscope.SafepointSync";

    /**
     * The agent's pairing: the thread whose op ({@code index_lookup}) on {@code path} ran all through the sync; all
     * three null when the agent paired nothing (it looked, and no op spanned the sync).
     */
    public record Agent(String behindThread, String behindOp, String behindPath) {
        public boolean paired() {
            return behindThread != null && !behindThread.isEmpty();
        }
    }

    /** Time to safepoint: how long every thread already stopped waited for the last ones. */
    public long syncNanos() {
        return Math.max(0, syncEnd - syncStart);
    }
}
