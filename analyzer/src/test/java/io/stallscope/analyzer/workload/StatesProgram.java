package io.stallscope.analyzer.workload;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * Threads that share no lock, each in one state for the whole run: {@code states-busy} computes,
 * {@code states-sleeping} sleeps, {@code states-parked} parks. Under wall-clock sampling with no lock events, the
 * analyzer finds nothing to name and says what each thread did instead.
 *
 * <p>Args: {@code seconds workDir truthFile}, the {@link Recorder}'s convention: the work directory is made (the
 * recorder empties it afterwards), the truth file is not used.
 */
public final class StatesProgram {
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        long deadline = System.nanoTime() + Long.parseLong(args[0]) * 1_000_000_000L;
        java.nio.file.Files.createDirectories(java.nio.file.Paths.get(args[1]));
        List<Thread> all = new ArrayList<>();
        all.add(new Thread(() -> {
            long x = 1;
            while (System.nanoTime() < deadline) {
                for (int i = 0; i < 100_000; i++) x = x * 6364136223846793005L + 1442695040888963407L;
                sink = x;
            }
        }, "states-busy"));
        all.add(new Thread(() -> {
            while (System.nanoTime() < deadline) {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "states-sleeping"));
        all.add(new Thread(() -> {
            while (System.nanoTime() < deadline) LockSupport.parkNanos(50_000_000L);
        }, "states-parked"));
        for (Thread t : all) t.start();
        for (Thread t : all) t.join();
    }
}
