package io.stallscope.it.broker;

/**
 * The schedule of a steady sender: the i-th send is due at start + i / rate. Sleeping to an absolute due
 * time, not a fixed gap, keeps the rate when a send itself is slow (a stalled broker must not slow the load).
 */
public final class FixedRate {
    private final long start = System.nanoTime();
    private final int perSecond;

    public FixedRate(int perSecond) {
        this.perSecond = perSecond;
    }

    /** Sleeps until the i-th send is due; false if interrupted (the sender should stop). */
    public boolean awaitSend(long i) {
        long wait = start + i * 1_000_000_000L / perSecond - System.nanoTime();
        if (wait <= 0) {
            return true;
        }
        try {
            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
