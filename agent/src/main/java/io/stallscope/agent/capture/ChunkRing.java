package io.stallscope.agent.capture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * The rolling recording: every recorder writes the current chunk into the private work directory; a
 * rotation closes it and starts the next, and only the last {@code keep} closed chunks are kept.
 * Used from the capture thread only.
 */
final class ChunkRing {
    private final List<ChunkRecorder> recorders;
    private final Path work;
    private final int keep;
    private final Deque<Chunk> closed = new ArrayDeque<>();
    private List<Path> currentFiles = new ArrayList<>();
    private long currentStart;
    private long seq;

    ChunkRing(List<ChunkRecorder> recorders, Path work, int keep) {
        this.recorders = recorders;
        this.work = work;
        this.keep = keep;
    }

    /** Closes the current chunk (if any) and starts the next one. */
    void rotate() throws Exception {
        long now = System.currentTimeMillis();
        List<Path> next = new ArrayList<>();
        seq++;
        for (int i = 0; i < recorders.size(); i++) {
            Path file = work.resolve("chunk-" + seq + "-" + i + ".jfr");
            recorders.get(i).next(file);
            next.add(file);
        }
        if (!currentFiles.isEmpty()) {
            closed.addLast(new Chunk(currentStart, now, existing(currentFiles)));
        }
        currentFiles = next;
        currentStart = now;
        while (closed.size() > keep) {
            for (Path p : closed.removeFirst().files) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** The recorders' figures, e.g. the profiler's longest gap at a chunk switch. */
    String notes() {
        StringBuilder sb = new StringBuilder();
        for (ChunkRecorder r : recorders) {
            if (!r.note().isEmpty()) {
                sb.append(", ").append(r.note());
            }
        }
        return sb.toString();
    }

    /** The closed chunks that overlap [fromMillis, toMillis], oldest first. */
    List<Chunk> covering(long fromMillis, long toMillis) {
        List<Chunk> out = new ArrayList<>();
        for (Chunk c : closed) {
            if (c.endMillis >= fromMillis && c.startMillis <= toMillis) {
                out.add(c);
            }
        }
        return out;
    }

    /** Stops every recorder; each is tried even if one fails; the first failure is rethrown. */
    void stop() throws Exception {
        Exception first = null;
        for (ChunkRecorder r : recorders) {
            try {
                r.stop();
            } catch (Exception e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private static List<Path> existing(List<Path> files) {
        List<Path> out = new ArrayList<>();
        for (Path p : files) {
            if (Files.isRegularFile(p)) {
                out.add(p);
            }
        }
        return out;
    }
}
