package io.stallscope.agent.mitigate;

import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardOpenOption;

/**
 * Fsyncs the segment a roll closed, before that roll's deferred snapshot is fsynced. Why the order matters: the
 * roll created the next segment's file, and the snapshot's fsync forces the file system's journal, which makes that
 * creation durable. Were the closed segment's data still only in the page cache then, a power cut would leave it
 * empty below a later segment: Kafka's recovery keeps an empty segment and the log end, so the broker serves a
 * hole that replication never refills (measured: docs/lab/power-loss.md, 2.8.2 with roll-flush, 2 of 10 cuts).
 * Fsyncing the segment first makes its data durable no later than the next segment's name. Kafka 2.8 takes the
 * snapshot before it creates the segment, so without the agent its roll forces no such creation early.
 */
final class RolledSegmentSync {
    private RolledSegmentSync() {
    }

    /**
     * The segment the roll at {@code snapshot}'s offset closed: in the same directory, the {@code .log} file with the
     * greatest base offset below it. Null when there is none (the log's first roll after a truncation, a name not
     * Kafka's).
     */
    static File closedBy(File snapshot) {
        long offset = PendingSnapshots.offset(snapshot);
        File dir = snapshot.getParentFile();
        String[] names = dir == null || offset == Long.MIN_VALUE ? null : dir.list();
        if (names == null) {
            return null;
        }
        long best = -1;
        for (String name : names) {
            long base = baseOffset(name);
            if (base >= 0 && base < offset && base > best) {
                best = base;
            }
        }
        return best < 0 ? null : new File(dir, String.format("%020d.log", best));
    }

    /** 00000000000000001234.log -> 1234; anything else -> -1. */
    static long baseOffset(String name) {
        if (name.length() != 24 || !name.endsWith(".log")) {
            return -1;
        }
        for (int i = 0; i < 20; i++) {
            char c = name.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
        }
        return Long.parseLong(name.substring(0, 20));
    }

    /**
     * Fsyncs the segment {@code snapshot}'s roll closed, if it is still there (retention or a truncation may have
     * deleted it: then there is nothing to make durable). Returns the file synced, or null. An I/O error is the
     * disk's and propagates, as the same error in Kafka's own segment flush, a moment later, would.
     */
    static File sync(File snapshot) throws IOException {
        File segment = closedBy(snapshot);
        if (segment == null) {
            return null;
        }
        try (FileChannel channel = FileChannel.open(segment.toPath(), StandardOpenOption.READ)) {
            channel.force(true);
            return segment;
        } catch (NoSuchFileException e) {
            return null;
        }
    }
}
