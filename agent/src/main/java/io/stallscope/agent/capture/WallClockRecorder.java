package io.stallscope.agent.capture;

import one.profiler.AsyncProfiler;

import java.nio.file.Path;

/**
 * async-profiler in wall-clock mode (every thread, running or not, so a handler stuck in write(2) or
 * waiting for a lock is seen), one JFR file per chunk. async-profiler has one session per JVM, so the
 * switch is stop then start: a gap of a few milliseconds between chunks.
 */
final class WallClockRecorder implements ChunkRecorder {
    private final AsyncProfiler profiler;
    private final long intervalNanos;
    private boolean running;
    private long longestGapNanos;

    WallClockRecorder(AsyncProfiler profiler, long intervalNanos) {
        this.profiler = profiler;
        this.intervalNanos = intervalNanos;
    }

    @Override
    public String name() {
        return "async-profiler " + profiler.getVersion() + " wall " + intervalNanos / 1_000_000 + " ms";
    }

    @Override
    public void next(Path file) throws Exception {
        long t0 = System.nanoTime();
        boolean switching = running;
        stop();
        // jfropts=3: without the system info and system properties async-profiler otherwise writes into every
        // chunk, which carry the JVM's arguments and -D values (a keystore password given as -D, say): a capture
        // is meant to be handed to an analyst, and the analyzer reads neither
        profiler.execute("start,event=wall,interval=" + intervalNanos + ",threads,jfr,jfropts=3,file=" + file);
        running = true;
        if (switching) {
            longestGapNanos = Math.max(longestGapNanos, System.nanoTime() - t0);
        }
    }

    /** The longest time without wall samples at a chunk switch so far (stop, write the chunk, start). */
    @Override
    public String note() {
        return "profiler gap at chunk switches <= " + longestGapNanos / 100_000 / 10.0 + " ms";
    }

    @Override
    public void stop() throws Exception {
        if (running) {
            running = false;
            profiler.execute("stop");
        }
    }
}
