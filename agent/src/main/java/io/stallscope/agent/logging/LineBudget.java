package io.stallscope.agent.logging;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * At most {@code perMinute} lines a minute (slow.log.per.minute): a storm shows without flooding server.log. A line
 * over the budget is counted, and the next line that gets through says how many were left out. Safe for several
 * writers at once.
 */
public final class LineBudget {
    private static final long MINUTE = 60_000_000_000L;

    private final int perMinute;
    private final AtomicLong windowStart = new AtomicLong(System.nanoTime());
    private final AtomicInteger inWindow = new AtomicInteger();
    private final AtomicLong suppressed = new AtomicLong();

    public LineBudget(int perMinute) {
        this.perMinute = perMinute;
    }

    /** Whether a line fits this minute's budget; one that does not is counted. */
    public boolean admit() {
        long now = System.nanoTime();
        long start = windowStart.get();
        if (now - start >= MINUTE && windowStart.compareAndSet(start, now)) {
            inWindow.set(0);
        }
        if (inWindow.incrementAndGet() > perMinute) {
            suppressed.incrementAndGet();
            return false;
        }
        return true;
    }

    /** The lines left out since the last call, for the line being written now to name. */
    public long takeSuppressed() {
        return suppressed.getAndSet(0);
    }
}
