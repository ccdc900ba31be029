package io.stallscope.it.agent;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.Predicate;

/** Waits for a condition with a bound, instead of sleeping a fixed time. */
public final class Polling {
    private Polling() {
    }

    /** Returns the first value that satisfies the condition, or the last one seen when time runs out; probes every 250 ms. */
    public static <T> T until(Duration timeout, Callable<T> probe, Predicate<T> done) throws Exception {
        return until(timeout, Duration.ofMillis(250), probe, done);
    }

    /** As {@link #until(Duration, Callable, Predicate)}, probing every {@code every}. */
    public static <T> T until(Duration timeout, Duration every, Callable<T> probe, Predicate<T> done) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        T last = probe.call();
        while (!done.test(last) && System.nanoTime() < deadline) {
            Thread.sleep(every.toMillis());
            last = probe.call();
        }
        return last;
    }
}
