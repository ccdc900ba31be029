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
        stop();
        profiler.execute("start,event=wall,interval=" + intervalNanos + ",threads,jfr,file=" + file);
        running = true;
    }

    @Override
    public void stop() throws Exception {
        if (running) {
            running = false;
            profiler.execute("stop");
        }
    }
}
