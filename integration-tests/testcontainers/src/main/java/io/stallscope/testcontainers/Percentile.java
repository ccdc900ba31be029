package io.stallscope.testcontainers;

import java.time.Duration;
import java.util.Locale;

/**
 * A percentile estimated from histogram buckets, with its error stated: the true value lies in
 * {@code (lower, upper]}, the bucket the rank falls in; {@link #estimate()} interpolates linearly inside
 * it (as Prometheus's histogram_quantile does). {@code upper} is null when the rank falls in the +Inf
 * bucket: then only "more than lower" is known, and the estimate is lower.
 */
public final class Percentile {
    private final double quantile;
    private final long count;
    private final Duration estimate;
    private final Duration lower;
    private final Duration upper;

    Percentile(double quantile, long count, Duration estimate, Duration lower, Duration upper) {
        this.quantile = quantile;
        this.count = count;
        this.estimate = estimate;
        this.lower = lower;
        this.upper = upper;
    }

    public double quantile() {
        return quantile;
    }

    /** How many ops the histogram held; 0 means there is no percentile ({@link #isEmpty()}). */
    public long count() {
        return count;
    }

    public boolean isEmpty() {
        return count == 0;
    }

    public Duration estimate() {
        return estimate;
    }

    /** Exclusive lower bound of the true value. */
    public Duration lower() {
        return lower;
    }

    /** Inclusive upper bound of the true value; null if unbounded (the +Inf bucket). */
    public Duration upper() {
        return upper;
    }

    /** "p99.9", "p50", "max". */
    public String label() {
        if (quantile == 1.0) {
            return "max";
        }
        String digits = String.format(Locale.ROOT, "%s", quantile * 100).replaceAll("\\.0$", "");
        return "p" + digits;
    }

    @Override
    public String toString() {
        if (isEmpty()) {
            return label() + " of no ops";
        }
        return label() + " ~ " + format(estimate) + " (bucket error: between " + format(lower) + " and "
                + (upper == null ? "+Inf" : format(upper)) + "; of " + count + " ops)";
    }

    static String format(Duration d) {
        long nanos = d.toNanos();
        if (nanos >= 1_000_000_000L) {
            return String.format(Locale.ROOT, "%.3f s", nanos / 1e9);
        }
        if (nanos >= 1_000_000L) {
            return String.format(Locale.ROOT, "%.3f ms", nanos / 1e6);
        }
        return String.format(Locale.ROOT, "%.1f us", nanos / 1e3);
    }
}
