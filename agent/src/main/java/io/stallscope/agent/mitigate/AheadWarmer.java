package io.stallscope.agent.mitigate;

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

    /** Queues the range after the slice. */
    void after(FileSlice slice) {
        long from = slice.start + slice.size;
        pool.execute(() -> {
            SliceWarmer.Outcome o = warmer.warm(slice.channel, from, aheadBytes, System.nanoTime() + MAX_NANOS_PER_RANGE);
            if (o.bytes > 0) {
                metrics.aheadWarmed(o.bytes);
            }
            if (o.stopped != null && !o.stopped.equals("truncated")) {
                metrics.event("ahead_" + o.stopped); // truncated: the end of the active segment, nothing to warm
            }
        });
    }

    /** Waits until the ranges queued so far are done: one worker runs them in order, so a marker queued now runs last. */
    boolean drained(long timeoutNanos) throws InterruptedException {
        CountDownLatch marker = new CountDownLatch(1);
        pool.execute(marker::countDown);
        return marker.await(timeoutNanos, TimeUnit.NANOSECONDS);
    }

    void close() {
        pool.shutdownNow(); // a warm-up in flight finishes its chunk and unmaps it
    }
}
