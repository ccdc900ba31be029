package io.stallscope.agent.mitigate;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * mitigate.prefetch.ahead.bytes: a reader catching up asks next for the range right after the slice it was
 * just sent, so one agent thread brings that range in meanwhile, while no request waits on it. A bounded
 * warm-up inside the request leaves the rest of a slice colder than the disk reads it (1 MiB at 8 MiB/s is
 * 125 ms, past a 50 ms bound), and the network thread's cold sendfile then holds XFS's inode lock; read
 * ahead, the next fetch finds its pages resident or in flight. A full queue drops the range (counted).
 */
final class AheadWarmer {
    private static final long MAX_NANOS_PER_RANGE = 2_000_000_000L;
    /** close() waits this long for the range in flight: its own bound, and a chunk past it. */
    private static final long CLOSE_WAIT_NANOS = MAX_NANOS_PER_RANGE + 1_000_000_000L;

    private final SliceWarmer warmer;
    private final long aheadBytes;
    private final PrefetchMetrics metrics;
    private final ThreadPoolExecutor pool;

    AheadWarmer(SliceWarmer warmer, long aheadBytes, PrefetchMetrics metrics) {
        this.warmer = warmer;
        this.aheadBytes = aheadBytes;
        this.metrics = metrics;
        this.pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(16), r -> {
            Thread t = new Thread(r, "stallscope-prefetch-ahead");
            t.setDaemon(true);
            return t;
        }, (r, executor) -> metrics.event("ahead_dropped"));
    }

    /** One range to warm after a slice. */
    private final class Range implements Runnable {
        private final FileSlice slice;
        private final long from;

        Range(FileSlice slice, long from) {
            this.slice = slice;
            this.from = from;
        }

        @Override
        public void run() {
            SliceWarmer.Outcome o = warmer.warm(slice, from, aheadBytes, System.nanoTime() + MAX_NANOS_PER_RANGE);
            if (o.bytes > 0) {
                metrics.aheadWarmed(o.bytes);
            }
            if (o.stopped != null && !o.stopped.equals("truncated")) {
                metrics.event("ahead_" + o.stopped); // truncated: the end of the active segment, nothing to warm
            }
        }
    }

    /** Queues the range after the slice. */
    void after(FileSlice slice) {
        pool.execute(new Range(slice, slice.start + slice.size));
    }

    /** Waits until the ranges queued so far are done: one worker runs them in order, so a marker queued now runs last. */
    boolean drained(long timeoutNanos) throws InterruptedException {
        CountDownLatch marker = new CountDownLatch(1);
        pool.execute(marker::countDown);
        return marker.await(timeoutNanos, TimeUnit.NANOSECONDS);
    }

    /**
     * Drops the queued ranges (counted) and lets the one in flight end by its own bound, waiting for it at most
     * that long. Never shutdownNow: an interrupt closes whatever channel the worker is in I/O on.
     */
    void close() {
        pool.shutdown();
        List<Runnable> dropped = new ArrayList<>();
        pool.getQueue().drainTo(dropped);
        for (Runnable r : dropped) {
            if (r instanceof Range) {
                metrics.event("ahead_dropped");
            }
        }
        try {
            pool.awaitTermination(CLOSE_WAIT_NANOS, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the caller's: the worker ends on its own
        }
    }
}
