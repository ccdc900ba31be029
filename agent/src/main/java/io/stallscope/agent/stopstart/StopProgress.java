package io.stallscope.agent.stopstart;

import java.util.function.Consumer;

/**
 * A daemon thread that, while one stop runs, writes a progress line every interval: a broker that hangs in its
 * stop tells which log it is closing. It does nothing in between and ends with the stop (or with the JVM).
 */
final class StopProgress extends Thread {
    private final Breakdown stop;
    private final long intervalNanos;
    private final Consumer<String> out;
    private volatile boolean finished;

    StopProgress(Breakdown stop, long intervalNanos, Consumer<String> out) {
        super("stallscope-stop-progress");
        setDaemon(true);
        this.stop = stop;
        this.intervalNanos = intervalNanos;
        this.out = out;
    }

    void finish() {
        finished = true;
        interrupt();
    }

    @Override
    public void run() {
        long next = stop.began() + intervalNanos;
        while (!finished) {
            long wait = next - System.nanoTime();
            if (wait > 0) {
                try {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                } catch (InterruptedException e) {
                    return;
                }
            }
            if (finished) {
                return;
            }
            try {
                out.accept(BreakdownLines.progress(stop, System.nanoTime()));
            } catch (Throwable ignored) {
                // a failed line is skipped; the next interval tries again
            }
            next += intervalNanos;
        }
    }
}
