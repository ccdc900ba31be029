package io.stallscope.analyzer.workload;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * A busy many-thread program for the benchmark recording: threads named like a broker's, recursing through a
 * few methods to varied depths (many distinct stacks), contending on shared monitors, some parking.
 *
 * <p>Args: {@code threads seconds [busyThreads]}: only the first busyThreads compute, the others mostly park,
 * so that the profiler's timer thread still gets a core on a small machine.
 */
public final class BusyProgram {
    static final Object[] LOCKS = {new Object(), new Object(), new Object(), new Object()};
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        long deadline = System.nanoTime() + Long.parseLong(args[1]) * 1_000_000_000L;
        int busy = args.length > 2 ? Integer.parseInt(args[2]) : threads;
        List<Thread> all = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            String name = switch (i % 4) {
                case 0 -> "data-plane-kafka-request-handler-" + i;
                case 1 -> "data-plane-kafka-network-thread-1-PLAINTEXT-PLAINTEXT-" + i;
                case 2 -> "ReplicaFetcherThread-" + i + "-1";
                default -> "kafka-scheduler-" + i;
            };
            boolean computes = i < busy;
            Thread t = new Thread(() -> work(deadline, computes), name);
            all.add(t);
            t.start();
        }
        for (Thread t : all) t.join();
    }

    static void work(long deadline, boolean computes) {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        while (System.nanoTime() < deadline) {
            int depth = 5 + r.nextInt(40);
            if (!computes || r.nextInt(10) == 0) {
                LockSupport.parkNanos(200_000L * r.nextInt(10));
            } else {
                sink += a(depth, r.nextInt(4));
            }
        }
    }

    static long a(int d, int lock) {
        return d <= 0 ? leaf(lock) : (d % 3 == 0 ? b(d - 1, lock) : c(d - 1, lock));
    }

    static long b(int d, int lock) {
        return d <= 0 ? leaf(lock) : (d % 2 == 0 ? a(d - 1, lock) : c(d - 1, lock)) + 1;
    }

    static long c(int d, int lock) {
        return d <= 0 ? leaf(lock) : a(d - 1, lock) + 2;
    }

    static long leaf(int lock) {
        // Every call takes one of four shared locks: a contention storm, many short waits on every thread.
        // (It also keeps most threads off-CPU, which a wall-clock profiler on two cores needs to sample densely.)
        synchronized (LOCKS[lock]) {
            return compute(20_000);
        }
    }

    static long compute(int n) {
        long x = 0;
        for (int i = 0; i < n; i++) x += i * 31L ^ x;
        return x;
    }
}
