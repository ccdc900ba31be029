package io.stallscope.agent.mitigate;

import io.stallscope.agent.bootstrap.Hooks;
import io.stallscope.agent.bootstrap.Op;

import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Producer-state snapshots written by a roll without their fsync, waiting for the flush of their log.
 * The fsync then runs on the thread doing that flush (the scheduler's flush-log job), before the flush
 * can move the recovery point: the guarantee Kafka 3.7 keeps (KAFKA-15046). Bounded: past
 * {@code maxPending} a snapshot is fsynced inline, as Kafka does.
 */
final class PendingSnapshots {
    static final String MITIGATION = "roll-flush";

    private final ConcurrentHashMap<File, Boolean> files = new ConcurrentHashMap<>();
    private final int maxPending;
    private final MitigationMetrics metrics;

    PendingSnapshots(int maxPending, MitigationMetrics metrics) {
        this.maxPending = maxPending;
        this.metrics = metrics;
    }

    /** Returns false when the caller must fsync now (too many pending). */
    boolean defer(File snapshot) {
        if (files.size() >= maxPending) {
            metrics.event(MITIGATION, "inline_max_pending");
            return false;
        }
        files.put(snapshot.getAbsoluteFile(), Boolean.TRUE);
        metrics.event(MITIGATION, "deferred");
        return true;
    }

    int size() {
        return files.size();
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
     * again). A snapshot whose name is not an offset is fsynced. An I/O error is rethrown: the flush that
     * needed the snapshot durable must not succeed.
     */
    void flush(File dir, long upToOffset) throws IOException {
        if (files.isEmpty()) {
            return;
        }
        File absolute = dir == null ? null : dir.getAbsoluteFile();
        for (File file : files.keySet()) {
            if ((absolute == null || absolute.equals(file.getParentFile())) && offset(file) <= upToOffset) {
                fsync(file);
            }
        }
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

    private void fsync(File file) throws IOException {
        long start = Hooks.enter(Op.SNAPSHOT_FLUSH);
        Throwable thrown = null;
        try (FileChannel channel = FileChannel.open(file.toPath(), StandardOpenOption.READ)) {
            channel.force(true);
            files.remove(file);
            metrics.event(MITIGATION, "flushed");
        } catch (NoSuchFileException e) {
            // deleted meanwhile (segment deletion, truncation): nothing left to make durable
            files.remove(file);
            metrics.event(MITIGATION, "vanished");
        } catch (IOException e) {
            thrown = e;
            metrics.event(MITIGATION, "io_error");
            throw e;
        } finally {
            Hooks.exit(Op.SNAPSHOT_FLUSH, start, file, -1L, thrown);
        }
    }
}
