package io.stallscope.agent.mitigate;

import java.io.File;
import java.util.concurrent.TimeUnit;

/**
 * Called from the advice on KafkaScheduler.schedule: a one-off "flush-log" task (the flush every roll
 * schedules for the rolled segment) gets the configured extra delay. It still runs, so the recovery
 * point still advances, only later; nothing else the scheduler runs is touched. A delayed job whose log
 * was renamed for deletion meanwhile (replaced by its -future copy after a log-dir move, or its topic
 * deleted; Kafka closes it right after the rename) is dropped instead: flushing its closed segments would
 * fail with ClosedChannelException and take the whole log dir offline. A log promoted from -future keeps
 * its job, which flushes it at its new path (the job holds the log, not the path). Kafka 2.8 to 4.4
 * (Log.flush, UnifiedLog.flush in core, then in kafka-storage from 4.1).
 */
public final class SegmentFlushDelayHooks {
    static final String MITIGATION = "segment-flush-delay";
    private static final String FLUSH_LOG = "flush-log";
    private static final String SCHEDULER_THREAD = "kafka-scheduler-";
    /** Kafka's suffix of a log dir renamed for deletion (Log/UnifiedLog.DeleteDirSuffix, 2.8 to 4.x). */
    private static final String DELETE_SUFFIX = "-delete";
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

    /** True when this flush, on a scheduler thread, is of a log renamed for deletion (or whose dir is gone). */
    public static boolean dropFlush(Object log) {
        if (extraNanos <= 0 || !Thread.currentThread().getName().startsWith(SCHEDULER_THREAD)) {
            return false;
        }
        File dir;
        try {
            dir = LogDirs.of(log);
        } catch (Throwable t) {
            return false;
        }
        if (dir == null || !(dir.getName().endsWith(DELETE_SUFFIX) || !dir.isDirectory())) {
            return false;
        }
        MitigationMetrics m = metrics;
        if (m != null) {
            m.event(MITIGATION, "dropped_deleted_log");
        }
        // with roll-flush, the snapshots this flush would have synced: no other flush of this log comes
        RollFlushHooks.logDropped(dir);
        return true;
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
