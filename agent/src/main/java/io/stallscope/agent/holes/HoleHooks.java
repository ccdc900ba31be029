package io.stallscope.agent.holes;

/**
 * What the recovery advice calls. Nothing here may throw into Kafka: a failure is counted and the recovery goes on
 * as Kafka runs it. Without a detector installed a call costs one volatile read.
 */
public final class HoleHooks {
    private static volatile HoleDetector detector;

    private HoleHooks() {
    }

    static void install(HoleDetector d) {
        detector = d;
    }

    public static void recovered(Object self, Object segment, Object arg1, int truncatedBytes) {
        HoleDetector d = detector;
        if (d == null) {
            return;
        }
        try {
            d.recovered(self, segment, arg1, truncatedBytes);
        } catch (Throwable t) {
            d.failed(t);
        }
    }
}
