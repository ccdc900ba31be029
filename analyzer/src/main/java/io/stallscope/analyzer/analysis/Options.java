package io.stallscope.analyzer.analysis;

import java.util.regex.Pattern;

/**
 * What the operator asked to look at: waiting threads matching {@code threads}, within [from, to] (epoch ns),
 * waits of at least {@code minWaitNanos}, the top {@code top} contentions and findings.
 */
public record Options(Pattern threads, long from, long to, long minWaitNanos, int top) {
    public static Options defaults() {
        return new Options(null, Long.MIN_VALUE, Long.MAX_VALUE, 0, 10);
    }

    public boolean threadMatches(String name) {
        return threads == null || threads.matcher(name).find();
    }
}
