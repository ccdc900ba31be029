package io.stallscope.agent.mitigate;

import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;

/**
 * What the roll-flush advice calls from inside Kafka's classes (they reach it through the system class
 * loader, which holds the agent jar). With nothing installed every method does exactly what Kafka
 * does. The fsync is skipped only for a snapshot written inside a roll, on that thread.
 */
public final class RollFlushHooks {
    private static volatile PendingSnapshots pending;
    private static volatile MitigationMetrics metrics;
    private static final ThreadLocal<int[]> ROLL_DEPTH = ThreadLocal.withInitial(() -> new int[1]);
    private static final ThreadLocal<File> WRITING = new ThreadLocal<>();
    private static final ThreadLocal<Object> ROLLING_LOG = new ThreadLocal<>();
    /** The log flush this thread is in ({log, upToOffset}), until its first segment flush runs the barrier. */
    private static final ThreadLocal<Object[]> FLUSHING = new ThreadLocal<>();

    private RollFlushHooks() {
    }

    static void install(PendingSnapshots snapshots, MitigationMetrics m) {
        metrics = m;
        pending = snapshots;
    }

    /**
     * Stops deferring; returns what was pending so the caller can flush it. Closed first, so a roll that
     * read {@code pending} before the switch flipped fsyncs inline instead of deferring after the final sync.
     */
    static PendingSnapshots uninstall() {
        PendingSnapshots was = pending;
        if (was != null) {
            was.close();
        }
        pending = null;
        return was;
    }

    public static void rollEntered(Object log) {
        if (ROLL_DEPTH.get()[0]++ == 0) {
            ROLLING_LOG.set(log);
        }
    }

    public static void rollExited() {
        int[] depth = ROLL_DEPTH.get();
        if (depth[0] > 0 && --depth[0] == 0) {
            ROLLING_LOG.remove();
        }
    }

    public static void snapshotWriteEntered(File snapshot) {
        if (pending != null && ROLL_DEPTH.get()[0] > 0) {
            WRITING.set(snapshot);
        }
    }

    public static void snapshotWriteExited() {
        WRITING.remove();
    }

    /** Replaces FileChannel.force inside writeSnapshot. */
    public static void force(FileChannel channel, boolean metaData) throws IOException {
        PendingSnapshots snapshots = pending;
        File snapshot = WRITING.get();
        if (snapshots != null && snapshot != null) {
            try {
                if (snapshots.defer(snapshot, ROLLING_LOG.get())) {
                    return;
                }
            } catch (Throwable t) {
                failed(t);
            }
        }
        channel.force(metaData);
    }

    /**
     * On entering Log.flush(long) / UnifiedLog.flush(long, boolean): the barrier is not run here but at the
     * first segment flush inside it, which is inside Kafka's maybeHandleIOException, so that an I/O error
     * of the deferred fsync takes the log dir offline as the same error in the roll does without the agent.
     */
    public static void logFlushEntered(Object log, long upToOffset) {
        PendingSnapshots snapshots = pending;
        if (snapshots != null && snapshots.size() + snapshots.failedCount() > 0) {
            FLUSHING.set(new Object[] {log, upToOffset});
        }
    }

    public static void logFlushExited() {
        FLUSHING.remove();
    }

    /** On entering LogSegment.flush(): inside a log's flush, the first one runs that flush's barrier. */
    public static void segmentFlushEntered() throws IOException {
        Object[] flushing = FLUSHING.get();
        if (flushing == null) {
            return;
        }
        FLUSHING.remove();
        beforeFlush(flushing[0], (Long) flushing[1]);
    }

    /**
     * Before a flush of this log up to {@code upToOffset} (and before it marks that recovery point), holding no
     * log's lock: its snapshots up to that offset become durable.
     */
    public static void beforeFlush(Object log, long upToOffset) throws IOException {
        barrier(log, upToOffset, true);
    }

    /**
     * The same from LocalLog.markFlushed, which runs under the UnifiedLog's lock: no other log's lock may be
     * taken there (two such flushes would deadlock).
     */
    public static void beforeFlushUnderLock(Object log, long upToOffset) throws IOException {
        barrier(log, upToOffset, false);
    }

    private static void barrier(Object log, long upToOffset, boolean mayLock) throws IOException {
        PendingSnapshots snapshots = pending;
        if (snapshots == null || snapshots.size() + snapshots.failedCount() == 0) {
            return;
        }
        File dir;
        try {
            dir = LogDirs.of(log);
        } catch (Throwable t) {
            failed(t);
            dir = null; // fsync every pending snapshot: more than needed, never less
        }
        try {
            snapshots.flush(dir == null ? null : log, dir, upToOffset, mayLock);
        } catch (RuntimeException | Error e) {
            // a bug of ours, not the disk's: count it and let Kafka's flush go on (an IOException,
            // the disk's, propagates and fails the flush as Kafka 3.7's snapshot flush would)
            failed(e);
        }
    }

    private static void failed(Throwable t) {
        MitigationMetrics m = metrics;
        if (m != null) {
            m.failed(PendingSnapshots.MITIGATION, t);
        }
    }
}
