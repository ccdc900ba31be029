package io.stallscope.agent.holes;

/**
 * What the recovery advice calls. Nothing here may throw into Kafka: a failure is counted and the recovery goes on
 * as Kafka runs it. Without a detector installed a call costs one volatile read.
 */
public final class HoleHooks {
    private static volatile HoleDetector detector;
    private static volatile HoleRepair repair;
    /** Depth of recoverLog on this thread: the only caller of recoverSegment that acts on its return value. */
    private static final ThreadLocal<int[]> IN_RECOVER_LOG = ThreadLocal.withInitial(() -> new int[1]);

    private HoleHooks() {
    }

    static void install(HoleDetector d) {
        install(d, null);
    }

    /** r null: detection only, recoverSegment's value is never changed. */
    static void install(HoleDetector d, HoleRepair r) {
        repair = r;
        detector = d;
    }

    /** Kafka's truncatedBytes, or HoleRepair.TRUNCATE when the repair quarantined the later segments. */
    public static int recovered(Object self, Object segment, Object arg1, int truncatedBytes) {
        HoleDetector d = detector;
        if (d == null) {
            return truncatedBytes;
        }
        HoleDetector.Found found;
        try {
            found = d.recovered(self, segment, arg1, truncatedBytes);
        } catch (Throwable t) {
            d.failed(t);
            return truncatedBytes;
        }
        HoleRepair r = repair;
        if (r == null || found == null || IN_RECOVER_LOG.get()[0] <= 0) {
            return truncatedBytes;
        }
        return r.repair(found, truncatedBytes);
    }

    public static void recoverLogEntered() {
        IN_RECOVER_LOG.get()[0]++;
    }

    public static void recoverLogExited() {
        IN_RECOVER_LOG.get()[0]--;
    }
}
