package io.stallscope.it.realdisk;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A steady source of safepoints in another JVM: SIGQUIT at a fixed rate, to which HotSpot answers with a thread dump on
 * its stdout, a VM operation at a safepoint (as jcmd Thread.print, without starting a JVM for each).
 */
final class ThreadDumps implements AutoCloseable {
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "thread-dumps");
        t.setDaemon(true);
        return t;
    });

    private ThreadDumps() {
    }

    static ThreadDumps every(long pid, Duration period) {
        ThreadDumps d = new ThreadDumps();
        d.timer.scheduleAtFixedRate(() -> {
            try {
                new ProcessBuilder("kill", "-QUIT", Long.toString(pid)).start().waitFor(5, TimeUnit.SECONDS);
            } catch (IOException e) {
                throw new IllegalStateException("cannot signal " + pid + ": " + e, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
        return d;
    }

    @Override
    public void close() throws InterruptedException {
        timer.shutdownNow();
        timer.awaitTermination(10, TimeUnit.SECONDS);
    }
}
