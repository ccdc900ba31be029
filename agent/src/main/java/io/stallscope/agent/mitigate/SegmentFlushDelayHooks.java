package io.stallscope.agent.mitigate;

import java.util.concurrent.TimeUnit;

/**
 * Called from the advice on KafkaScheduler.schedule: a one-off "flush-log" task (the flush every roll
 * schedules for the rolled segment) gets the configured extra delay. It still runs, so the recovery
 * point still advances, only later; nothing else the scheduler runs is touched.
 */
public final class SegmentFlushDelayHooks {
    static final String MITIGATION = "segment-flush-delay";
    private static final String FLUSH_LOG = "flush-log";
    private static volatile long extraNanos;
    private static volatile MitigationMetrics metrics;

    private SegmentFlushDelayHooks() {
    }

    static void install(long nanos, MitigationMetrics m) {
        metrics = m;
        extraNanos = nanos;
    }

    static void uninstall() {
        extraNanos = 0;
    }

    /** The delay to schedule with, in {@code unit}. */
    public static long delay(String name, long delay, long period, TimeUnit unit) {
        long extra = extraNanos;
        if (extra <= 0 || period > 0 || !FLUSH_LOG.equals(name)) {
            return delay;
        }
        MitigationMetrics m = metrics;
        if (m != null) {
            m.event(MITIGATION, "deferred");
        }
        return delay + unit.convert(extra, TimeUnit.NANOSECONDS);
    }
}
