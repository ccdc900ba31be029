package io.stallscope.agent.report;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The agent's own thread for the reporting of slow ops that need not run on the broker's thread: ranking the ops
 * that overlapped them, the pairing metric, formatting and writing the slow-op line (a write into the broker's log,
 * which can block). The broker's thread only hands work over: a bounded queue, offered to, never waited on; work
 * that does not fit is dropped and counted.
 */
final class SlowOpReporter {
    /** Slow ops waiting to be reported at most: a storm beyond it is counted, not queued without end. */
    static final int CAPACITY = 128;

    private final BlockingQueue<Runnable> queue = new ArrayBlockingQueue<>(CAPACITY);
    private final Runnable onDrop;
    private final Thread thread;
    private volatile boolean stopped;

    /** @param onDrop told of each report that did not fit, on the broker's thread: must be cheap and never block */
    SlowOpReporter(Runnable onDrop) {
        this.onDrop = onDrop;
        this.thread = new Thread(this::run, "stallscope-slow-ops");
        thread.setDaemon(true);
        thread.setContextClassLoader(null);
        thread.start();
    }

    /** Hands a report over without blocking; false (and counted) when the queue is full or the reporter stopped. */
    boolean submit(Runnable report) {
        if (stopped || !queue.offer(report)) {
            onDrop.run();
            return false;
        }
        return true;
    }

    /** Waits until what was submitted before this call has been reported; false when that took too long. */
    boolean drain(long timeout, TimeUnit unit) throws InterruptedException {
        CountDownLatch reached = new CountDownLatch(1);
        return queue.offer(reached::countDown, timeout, unit) && reached.await(timeout, unit);
    }

    /** At detach: reports what is queued (for at most a second), then ends the thread. */
    void stop() {
        try {
            drain(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        stopped = true;
        thread.interrupt();
        try {
            thread.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        queue.clear();
    }

    private void run() {
        while (!stopped) {
            Runnable report;
            try {
                report = queue.take();
            } catch (InterruptedException e) {
                return;
            }
            try {
                report.run();
            } catch (Throwable t) {
                // each report counts its own failures; this thread must outlive any of them
            }
        }
    }
}
