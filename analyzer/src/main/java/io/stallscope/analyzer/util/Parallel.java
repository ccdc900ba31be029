package io.stallscope.analyzer.util;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Runs numbered units of work on a few threads, each with its own state (scratch arrays, caches), taking
 * the next unit as it finishes one. Callers keep results per unit and combine them in unit order, so the
 * outcome never depends on which thread ran what.
 */
public final class Parallel {
    private Parallel() {
    }

    /** Worker threads: {@code -Dstallscope.threads=N}, else the machine's cores, at most 8. */
    public static int threads() {
        int n = Integer.getInteger("stallscope.threads", Math.min(8, Runtime.getRuntime().availableProcessors()));
        return Math.max(1, n);
    }

    /** One unit of work, given the running worker's own state. */
    public interface Task<W> {
        void run(W worker, int unit) throws Exception;
    }

    /**
     * Runs {@code task} for units 0..units-1 on up to {@link #threads()} threads and returns the workers' states.
     * The first failure is rethrown once all threads have stopped (unchecked as is, checked ones wrapped).
     */
    public static <W> List<W> run(int units, Supplier<W> state, Task<W> task) throws Exception {
        int n = Math.max(1, Math.min(threads(), units));
        List<W> states = new ArrayList<>();
        for (int i = 0; i < n; i++) states.add(state.get());
        AtomicInteger next = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Runnable[] bodies = new Runnable[n];
        for (int i = 0; i < n; i++) {
            W w = states.get(i);
            bodies[i] = () -> {
                try {
                    for (int u; failure.get() == null && (u = next.getAndIncrement()) < units; ) task.run(w, u);
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            };
        }
        // The caller's thread is one of the workers: a one-thread run starts no thread at all.
        Thread[] threads = new Thread[n - 1];
        for (int i = 1; i < n; i++) {
            threads[i - 1] = new Thread(bodies[i], "stallscope-worker-" + i);
            threads[i - 1].setDaemon(true);
            threads[i - 1].start();
        }
        bodies[0].run();
        for (Thread t : threads) t.join();
        Throwable t = failure.get();
        if (t instanceof Exception e) throw e;
        if (t instanceof Error e) throw e;
        return states;
    }
}
