package io.stallscope.analyzer.read;

import io.stallscope.analyzer.model.LogDir;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.SampleBlock;
import io.stallscope.analyzer.model.SourceFile;
import io.stallscope.analyzer.model.Span;
import io.stallscope.analyzer.model.ThreadInfo;

/**
 * Adds a chunk read on its own (its own thread, frame and stack numbering) to the whole recording. Threads,
 * frames and stacks are interned in the chunk's order of first use, and the chunk's samples and events added in the
 * chunk's order, so merging chunks in file order gives what reading them one after the other into the
 * recording gives.
 */
final class ChunkMerge {
    private ChunkMerge() {
    }

    static void merge(Recording chunk, SampleBlock samples, SourceFile chunkFile, boolean intervalFromWall, Recording rec,
                      SourceFile file) {
        // One method per loop: as one, each hot loop's on-stack compile took in all that followed it, and C2 spent
        // over a second on this method when a chunk holds a thousand threads and their stacks.
        int[] threads = threads(chunk, rec, file);
        int[] stacks = stacks(chunk, frames(chunk, rec), rec);
        samples.remap(threads, stacks);
        rec.samples.add(samples);
        rec.locks.addAll(chunk.locks, threads, stacks);
        rec.io.addAll(chunk.io, threads, stacks);
        for (Span s : chunk.spans) {
            rec.spans.add(new Span(s.type(), s.start(), s.end(), thread(threads, s.thread()), s.op(), s.threadRole(), s.topic(),
                    s.partition(), s.bytes(), s.path(), s.failed(), s.behind()));
        }
        rec.safepoints.addAll(chunk.safepoints);
        for (LogDir d : chunk.logDirs) {
            rec.logDirs.add(new LogDir(file.index, d.logDir(), d.fileSystem(), d.device(), d.mountPoint()));
        }
        file.chunks += chunkFile.chunks;
        file.startNanos = Math.min(file.startNanos, chunkFile.startNanos);
        file.endNanos = Math.max(file.endNanos, chunkFile.endNanos);
        file.producers.addAll(chunkFile.producers);
        file.warnings.addAll(chunkFile.warnings);
        chunkFile.eventCounts.forEach((k, v) -> file.eventCounts.merge(k, v, Long::sum));
        if (chunkFile.profilerEvent != null) file.profilerEvent = chunkFile.profilerEvent;
        if (chunkFile.sampleIntervalNanos > 0 && (file.sampleIntervalNanos == 0 || intervalFromWall)) {
            file.sampleIntervalNanos = chunkFile.sampleIntervalNanos;
        }
    }

    /** The recording's id of each of the chunk's threads. */
    private static int[] threads(Recording chunk, Recording rec, SourceFile file) {
        int[] threads = new int[chunk.threads.size()];
        for (ThreadInfo t : chunk.threads) threads[t.id()] = rec.thread(file.index, t.name(), t.javaId(), t.osId());
        return threads;
    }

    /** The recording's id of each of the chunk's frames. */
    private static int[] frames(Recording chunk, Recording rec) {
        int[] frames = new int[chunk.frames.size()];
        for (int i = 0; i < frames.length; i++) {
            frames[i] = rec.frames.intern(chunk.frames.name(i), chunk.frames.line(i), chunk.frames.isJava(i));
        }
        return frames;
    }

    /** The recording's id of each of the chunk's stacks, their frames mapped through {@code frames}. */
    private static int[] stacks(Recording chunk, int[] frames, Recording rec) {
        int[] stacks = new int[chunk.stacks.size()];
        for (int i = 1; i < stacks.length; i++) {
            int[] f = chunk.stacks.frames(i);
            int[] g = new int[f.length];
            for (int k = 0; k < f.length; k++) g[k] = frames[f[k]];
            stacks[i] = rec.stacks.intern(g);
        }
        return stacks;
    }

    private static int thread(int[] threads, int id) {
        return id < 0 ? id : threads[id];
    }
}
