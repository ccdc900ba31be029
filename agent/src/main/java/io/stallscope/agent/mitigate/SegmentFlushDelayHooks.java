package io.stallscope.agent.mitigate;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
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
 *
 * <p>From 3.7 the same job first fsyncs the roll's producer-state snapshot (KAFKA-15046), by a path fixed at
 * the roll. A rename inside the delay moves the file away and Kafka's fsync would find nothing (a WARN, and
 * the snapshot never synced): it is re-targeted to the log's current directory, or dropped when that log
 * was renamed for deletion ({@link #snapshotToFlush}).
 */
public final class SegmentFlushDelayHooks {
    static final String MITIGATION = "segment-flush-delay";
    private static final String FLUSH_LOG = "flush-log";
    private static final String SCHEDULER_THREAD = "kafka-scheduler-";
    /** Kafka's suffix of a log dir renamed for deletion (Log/UnifiedLog.DeleteDirSuffix, 2.8 to 4.x). */
    private static final String DELETE_SUFFIX = "-delete";
    private static volatile long extraNanos;
    private static volatile MitigationMetrics metrics;
    /** The snapshot fsync this thread re-targeted, counted when Kafka's fsync of it returns. */
    private static final ThreadLocal<Path> RETARGETED = new ThreadLocal<>();

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
        File dir = logDir(log);
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

    /**
     * Where a delayed flush-log job's fsync of the roll's snapshot (3.7+, UnifiedLog.flushProducerStateSnapshot)
     * goes: the path Kafka gave while the file is still there; the same file name in the log's current
     * directory when the log was renamed meanwhile (a -future log promoted by a log-dir move); null, to skip
     * it, when the log was renamed for deletion (its files go with the directory). Anything else (the file
     * deleted, the log's dir unknown) is left to Kafka, which logs it as without the agent.
     */
    public static Path snapshotToFlush(Object log, Path snapshot) {
        if (extraNanos <= 0 || snapshot == null || Files.exists(snapshot)) {
            return snapshot;
        }
        File dir = logDir(log);
        if (dir == null) {
            return snapshot;
        }
        MitigationMetrics m = metrics;
        if (dir.getName().endsWith(DELETE_SUFFIX)) {
            if (m != null) {
                m.event(MITIGATION, "snapshot_dropped_deleted_log");
            }
            return null;
        }
        Path moved = dir.toPath().resolve(snapshot.getFileName().toString());
        if (moved.equals(snapshot) || !Files.exists(moved)) {
            return snapshot;
        }
        RETARGETED.set(moved);
        return moved;
    }

    /** After Kafka's snapshot fsync: a re-targeted one that returned is counted as synced at its new path. */
    public static void snapshotFlushExited(Throwable thrown) {
        Path moved = RETARGETED.get();
        if (moved == null) {
            return;
        }
        RETARGETED.remove();
        MitigationMetrics m = metrics;
        if (m != null) {
            m.event(MITIGATION, thrown == null ? "flushed_renamed" : "renamed_io_error");
        }
    }

    /** The log's current directory; null when unknown or when reading it fails (the flush then runs as Kafka wrote it). */
    private static File logDir(Object log) {
        try {
            return LogDirs.of(log);
        } catch (Throwable t) {
            return null;
        }
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
