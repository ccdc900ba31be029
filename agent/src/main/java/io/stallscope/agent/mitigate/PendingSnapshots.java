package io.stallscope.agent.mitigate;

import io.stallscope.agent.bootstrap.Hooks;
import io.stallscope.agent.bootstrap.Op;

import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Producer-state snapshots written by a roll without their fsync, waiting for the flush of their log.
 * The fsync then runs on the thread doing that flush (the scheduler's flush-log job), before the flush
 * can move the recovery point: the guarantee Kafka 3.7 keeps (KAFKA-15046). Bounded: past
 * {@code maxPending} a snapshot is fsynced inline, as Kafka does.
 *
 * <p>An entry remembers the log that rolled it, and finds its file through that log's current directory:
 * a log renamed meanwhile ({@code -future} promoted to current, {@code -delete}) takes its snapshots along.
 * Kafka's renameDir moves the directory before it updates dir(), under the log's lock: a file not found is
 * looked up again under that lock (briefly, never while fsyncing: that would be KAFKA-9693 again), and an
 * entry is dropped unsynced only when its file is provably gone (absent from the dir read under the lock, or
 * that dir gone); anything it cannot prove stays pending.
 * A failed fsync stays failed: Linux reports a writeback error once, and an fsync on a new descriptor
 * afterwards usually returns 0 although the data is lost.
 */
final class PendingSnapshots {
    static final String MITIGATION = "roll-flush";

    private final ConcurrentHashMap<File, Entry> files = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<File, IOException> failed = new ConcurrentHashMap<>();
    private final int maxPending;
    private final MitigationMetrics metrics;
    private final SegmentSync segmentSync;
    private boolean closed;

    PendingSnapshots(int maxPending, MitigationMetrics metrics) {
        this(maxPending, metrics, RolledSegmentSync::sync);
    }

    /** {@code segmentSync}: what fsyncs a snapshot's closed segment first; a test's recorder in tests. */
    PendingSnapshots(int maxPending, MitigationMetrics metrics, SegmentSync segmentSync) {
        this.maxPending = maxPending;
        this.metrics = metrics;
        this.segmentSync = segmentSync;
    }

    /** Fsyncs the segment a snapshot's roll closed (RolledSegmentSync). */
    interface SegmentSync {
        File sync(File snapshot) throws IOException;
    }

    /** A snapshot written outside any known log (its path is final). */
    boolean defer(File snapshot) {
        return defer(snapshot, null);
    }

    /**
     * Returns false when the caller must fsync now: too many pending, or closed (detach), so that no roll
     * can defer after the final sync.
     */
    synchronized boolean defer(File snapshot, Object log) {
        if (closed) {
            metrics.event(MITIGATION, "inline_detached");
            return false;
        }
        if (files.size() >= maxPending) {
            metrics.event(MITIGATION, "inline_max_pending");
            return false;
        }
        File absolute = snapshot.getAbsoluteFile();
        files.put(absolute, new Entry(absolute, log));
        metrics.event(MITIGATION, "deferred");
        return true;
    }

    int size() {
        return files.size();
    }

    int failedCount() {
        return failed.size();
    }

    /** Stops deferring: every later {@link #defer} answers false. */
    synchronized void close() {
        closed = true;
    }

    /** Fsyncs every pending snapshot of the log in {@code dir} (every pending one when dir is null). */
    void flush(File dir) throws IOException {
        flush(dir, Long.MAX_VALUE);
    }

    /** {@link #flush(Object, File, long, boolean)} known by its dir only, holding no log's lock. */
    void flush(File dir, long upToOffset) throws IOException {
        flush(null, dir, upToOffset, true);
    }

    /**
     * Fsyncs the pending snapshots of {@code log} (the one that rolled them), or of the log in {@code dir}
     * (every log's when both are null), whose offset is at most {@code upToOffset}: those a recovery point of
     * {@code upToOffset} relies on. Later ones (rolls made while this flush ran) stay pending for their own
     * roll's flush: on 3.x the recovery point is marked under the partition lock, and their fsync there would
     * stall every producer (KAFKA-9693 again). A snapshot whose name is not an offset is fsynced. An I/O
     * error (now, or an earlier one of the same file) is rethrown: the flush that needed the snapshot durable
     * must not succeed. {@code mayLock}: false when the caller holds a log's lock already (LocalLog.markFlushed),
     * so that it takes no other log's lock (two such flushes would deadlock).
     */
    void flush(Object log, File dir, long upToOffset, boolean mayLock) throws IOException {
        File absolute = dir == null ? null : dir.getAbsoluteFile();
        for (Map.Entry<File, IOException> f : failed.entrySet()) {
            if (absolute == null && log == null || absolute != null && absolute.equals(f.getKey().getParentFile())) {
                throw f.getValue();
            }
        }
        for (Entry entry : files.values()) {
            File now = entry.current();
            boolean ofThisLog = log == null && absolute == null || log != null && entry.log == log
                || absolute != null && absolute.equals(now.getParentFile());
            if (ofThisLog && offset(now) <= upToOffset) {
                sync(entry, now, mayLock);
            }
        }
    }

    /**
     * On detach: fsyncs every pending snapshot, going on past failures; returns one per snapshot that could
     * not be made durable (now, or earlier), with the log it belongs to.
     */
    List<Failure> flushAll() {
        List<Failure> failures = new ArrayList<>();
        for (Map.Entry<File, IOException> f : failed.entrySet()) {
            failures.add(new Failure(f.getKey(), null, f.getValue(), false));
        }
        for (Entry entry : files.values()) {
            File now = entry.current();
            try {
                if (!sync(entry, now, true)) {
                    failures.add(new Failure(now, entry.log, new NoSuchFileException(now.toString(), null,
                        "not found under its log's dir, and not proven deleted"), false));
                }
            } catch (IOException e) {
                failures.add(new Failure(now, entry.log, e, true));
            }
        }
        return failures;
    }

    /** Kafka names a snapshot by its offset, zero-padded: 00000000000000001234.snapshot; else MIN_VALUE. */
    static long offset(File snapshot) {
        String name = snapshot.getName();
        int dot = name.indexOf('.');
        try {
            return Long.parseLong(dot < 0 ? name : name.substring(0, dot));
        } catch (NumberFormatException e) {
            return Long.MIN_VALUE; // not Kafka's name: always made durable
        }
    }

    /**
     * Fsyncs the entry's file, found again under its log's lock when not where the unlocked dir() said (a
     * rename in flight, or one since). Returns false when it is neither synced nor provably gone: it stays
     * pending.
     */
    private boolean sync(Entry entry, File file, boolean mayLock) throws IOException {
        File at = file;
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                force(entry, at);
                return true;
            } catch (NoSuchFileException e) {
                Entry.Where where = entry.locate(mayLock);
                if (where.gone) {
                    // deleted (segment deletion, truncation, the log's -delete dir removed): nothing left
                    if (files.remove(entry.written, entry)) {
                        metrics.event(MITIGATION, "vanished");
                    }
                    return true;
                }
                if (where.file == null) {
                    break;
                }
                at = where.file; // renamed meanwhile: it is there
            }
        }
        metrics.event(MITIGATION, "not_found_kept");
        return false;
    }

    private void force(Entry entry, File file) throws IOException {
        // the closed segment's data first: the snapshot's fsync would otherwise make the next segment's name
        // durable before it (RolledSegmentSync). Untimed: Kafka's own flush of that segment, moved a moment earlier.
        segmentSync.sync(file);
        long start = Hooks.enter(Op.SNAPSHOT_FLUSH);
        Throwable thrown = null;
        // two flushes of one log (flush-log jobs on two scheduler threads) can sync the same entry at once:
        // only the one that removes it counts it, so the counters add up to what was deferred
        try (FileChannel channel = FileChannel.open(file.toPath(), StandardOpenOption.READ)) {
            channel.force(true);
            if (files.remove(entry.written, entry)) {
                metrics.event(MITIGATION, file.equals(entry.written) ? "flushed" : "flushed_renamed");
            }
        } catch (NoSuchFileException e) {
            thrown = e;
            throw e;
        } catch (IOException e) {
            thrown = e;
            failed.put(file, e);
            if (files.remove(entry.written, entry)) {
                metrics.event(MITIGATION, "io_error");
            }
            throw e;
        } finally {
            Hooks.exit(Op.SNAPSHOT_FLUSH, start, file, -1L, thrown);
        }
    }

    /** A snapshot not made durable: its file, its log (null if unknown), why; ioError: the disk said so. */
    static final class Failure {
        final File file;
        final Object log;
        final IOException error;
        final boolean ioError;

        Failure(File file, Object log, IOException error, boolean ioError) {
            this.file = file;
            this.log = log;
            this.error = error;
            this.ioError = ioError;
        }

        @Override
        public String toString() {
            return file + ": " + error;
        }
    }

    /** A deferred snapshot: where it was written, and the log whose directory it lives in. */
    private static final class Entry {
        /** The outcome of {@link #locate}: the file, or provably gone, or neither. */
        static final class Where {
            final File file;
            final boolean gone;

            Where(File file, boolean gone) {
                this.file = file;
                this.gone = gone;
            }
        }

        final File written;
        final Object log;

        Entry(File written, Object log) {
            this.written = written;
            this.log = log;
        }

        /**
         * Where the file is, read under the log's lock so that a rename in flight completes first: gone when
         * it is absent from that dir or the dir is gone; a file when it is there; neither when that cannot
         * be proven (no log lock, or one this thread may not take).
         */
        Where locate(boolean mayLock) {
            if (log == null) {
                return written.exists() ? new Where(written, false) : new Where(null, true); // a final path
            }
            try {
                Object lock = LogLocks.of(log);
                if (lock == null || !mayLock && !Thread.holdsLock(lock)) {
                    return new Where(null, false);
                }
                synchronized (lock) { // a dir read and two stats: never an fsync under Kafka's lock
                    File dir = LogDirs.of(log);
                    if (dir == null) {
                        return new Where(null, false);
                    }
                    File file = new File(dir.getAbsoluteFile(), written.getName());
                    return file.exists() ? new Where(file, false) : new Where(null, true); // absent, or its dir is gone
                }
            } catch (Throwable t) {
                return new Where(null, false);
            }
        }

        /** Where the file is now: in the log's current directory, which a rename moves. */
        File current() {
            if (log == null) {
                return written;
            }
            try {
                File dir = LogDirs.of(log);
                return dir == null ? written : new File(dir.getAbsoluteFile(), written.getName());
            } catch (Throwable t) {
                return written;
            }
        }
    }
}
