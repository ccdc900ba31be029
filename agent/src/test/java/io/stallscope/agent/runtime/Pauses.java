package io.stallscope.agent.runtime;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** What the in-flight-op tests' worker threads wait on: a latch (bounded), or an op's own minimum length. */
final class Pauses {
    private Pauses() {
    }

    static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Keeps the calling thread inside the op under test for at least this long: the op's length is the test's subject. */
    static void sleepAtLeast(long millis) {
        long end = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() < end) {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * Until the condition holds, 10 s at most (then the test fails): for a state nothing signals, such as a thread
     * queued on a lock.
     */
    static void until(BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("condition not met within 10 s");
            }
            LockSupport.parkNanos(1_000_000L);
        }
    }
}
