package io.stallscope.analyzer.analysis;

import java.util.regex.Pattern;

/**
 * What the operator asked to look at: waiting threads matching {@code threads}, within [from, to] (epoch ns),
 * waits of at least {@code minWaitNanos}, the top {@code top} contentions and findings, and safepoints whose time to
 * safepoint was at least {@code slowSafepointNanos}.
 */
public record Options(Pattern threads, long from, long to, long minWaitNanos, int top, long slowSafepointNanos) {
    /**
     * A slow time to safepoint, by default: a healthy JVM syncs in well under a millisecond, and 50 ms is where a
     * broker's clients start to notice (the agent's own slow.threshold.safepoint_sync is 50 to 100 ms).
     */
    public static final long SLOW_SAFEPOINT_NANOS = 50_000_000L;

    public Options(Pattern threads, long from, long to, long minWaitNanos, int top) {
        this(threads, from, to, minWaitNanos, top, SLOW_SAFEPOINT_NANOS);
    }

    public static Options defaults() {
        return new Options(null, Long.MIN_VALUE, Long.MAX_VALUE, 0, 10);
    }

    public boolean threadMatches(String name) {
        return threads == null || threads.matcher(name).find();
    }
}
