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
 * A failed fsync stays failed: Linux reports a writeback error once, and an fsync on a new descriptor
 * afterwards usually returns 0 although the data is lost.
 */
final class PendingSnapshots {
    static final String MITIGATION = "roll-flush";

    private final ConcurrentHashMap<File, Entry> files = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<File, IOException> failed = new ConcurrentHashMap<>();
    private final int maxPending;
    private final MitigationMetrics metrics;
    private boolean closed;

    PendingSnapshots(int maxPending, MitigationMetrics metrics) {
        this.maxPending = maxPending;
        this.metrics = metrics;
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

    /**
     * Fsyncs the pending snapshots of the log in {@code dir} (every log's when dir is null) whose offset is
     * at most {@code upToOffset}: those a recovery point of {@code upToOffset} relies on. Later ones (rolls
     * made while this flush ran) stay pending for their own roll's flush: on 3.x the recovery point is
     * marked under the partition lock, and their fsync there would stall every producer (KAFKA-9693
     * again). A snapshot whose name is not an offset is fsynced. An I/O error (now, or an earlier one of
     * the same file) is rethrown: the flush that needed the snapshot durable must not succeed.
     */
    void flush(File dir, long upToOffset) throws IOException {
        File absolute = dir == null ? null : dir.getAbsoluteFile();
        for (Map.Entry<File, IOException> f : failed.entrySet()) {
            if (absolute == null || absolute.equals(f.getKey().getParentFile())) {
                throw f.getValue();
            }
        }
        for (Entry entry : files.values()) {
            File now = entry.current();
            if ((absolute == null || absolute.equals(now.getParentFile())) && offset(now) <= upToOffset) {
                fsync(entry, now);
            }
        }
    }

    /**
     * On detach: fsyncs every pending snapshot, going on past failures; returns one line per snapshot
     * that could not be made durable (now, or earlier).
     */
    List<String> flushAll() {
        List<String> failures = new ArrayList<>();
        for (Map.Entry<File, IOException> f : failed.entrySet()) {
            failures.add(f.getKey() + ": " + f.getValue());
        }
        for (Entry entry : files.values()) {
            File now = entry.current();
            try {
                fsync(entry, now);
            } catch (IOException e) {
                failures.add(now + ": " + e);
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

    private void fsync(Entry entry, File file) throws IOException {
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
            // deleted meanwhile (segment deletion, truncation, the log's -delete dir removed): nothing left
            if (files.remove(entry.written, entry)) {
                metrics.event(MITIGATION, "vanished");
            }
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

    /** A deferred snapshot: where it was written, and the log whose directory it lives in. */
    private static final class Entry {
        final File written;
        final Object log;

        Entry(File written, Object log) {
            this.written = written;
            this.log = log;
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
