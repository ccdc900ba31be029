package io.stallscope.testcontainers;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;

/**
 * The agent's op-duration histogram for one selection (op, role, maybe a topic-partition), summed over
 * the series it covers: cumulative bucket counts by upper bound in seconds (the last is +Inf), count and
 * sum. The difference of two of them ({@link #minus}) is the histogram of what happened in between.
 */
public final class OpHistogram {
    /** Stands for the +Inf bucket's bound. */
    public static final Duration UNBOUNDED = Duration.ofSeconds(Long.MAX_VALUE);

    private final String selection;
    private final double[] bounds;
    private final long[] cumulative;
    private final double sumSeconds;

    OpHistogram(String selection, double[] bounds, long[] cumulative, double sumSeconds) {
        if (bounds.length != cumulative.length) {
            throw new IllegalArgumentException("bounds and counts differ in length");
        }
        this.selection = selection;
        this.bounds = bounds;
        this.cumulative = cumulative;
        this.sumSeconds = sumSeconds;
    }

    static OpHistogram empty(String selection) {
        return new OpHistogram(selection, new double[] {Double.POSITIVE_INFINITY}, new long[] {0}, 0);
    }

    /** What this histogram covers, e.g. "records_append on request_handler". */
    public String selection() {
        return selection;
    }

    public long count() {
        return cumulative.length == 0 ? 0 : cumulative[cumulative.length - 1];
    }

    public Duration sum() {
        return Duration.ofNanos(Math.round(sumSeconds * 1e9));
    }

    public Percentile p50() {
        return percentile(0.5);
    }

    public Percentile p99() {
        return percentile(0.99);
    }

    public Percentile p999() {
        return percentile(0.999);
    }

    /** The slowest op's bucket: its upper bound is the bound on the max the buckets give. */
    public Percentile max() {
        return percentile(1.0);
    }

    /** The q-quantile (0 < q <= 1), from the buckets; see {@link Percentile} for its error. */
    public Percentile percentile(double q) {
        if (!(q > 0 && q <= 1)) {
            throw new IllegalArgumentException("a quantile is in (0, 1], not " + q);
        }
        long total = count();
        if (total == 0) {
            return new Percentile(q, 0, Duration.ZERO, Duration.ZERO, Duration.ZERO);
        }
        double rank = q * total;
        long previous = 0;
        for (int i = 0; i < bounds.length; i++) {
            if (cumulative[i] >= rank && cumulative[i] > previous) {
                double lower = i == 0 ? 0 : bounds[i - 1];
                if (Double.isInfinite(bounds[i])) {
                    return new Percentile(q, total, seconds(lower), seconds(lower), null);
                }
                double inBucket = cumulative[i] - previous;
                double estimate = lower + (bounds[i] - lower) * ((rank - previous) / inBucket);
                return new Percentile(q, total, seconds(estimate), seconds(lower), seconds(bounds[i]));
            }
            previous = cumulative[i];
        }
        throw new IllegalStateException("rank " + rank + " beyond the +Inf bucket of " + selection);
    }

    /**
     * How many ops took longer than {@code limit}, rounded up to the first bucket bound at or over it: ops
     * between {@code limit} and that bound are not counted (the bucket error), none under it are.
     */
    public long countOver(Duration limit) {
        return count() - cumulative[indexOfBoundAtOrOver(limit)];
    }

    /** The bucket bound {@link #countOver} counts from; {@link #UNBOUNDED} past the last finite bound. */
    public Duration boundAtOrOver(Duration limit) {
        double b = bounds[indexOfBoundAtOrOver(limit)];
        return Double.isInfinite(b) ? UNBOUNDED : seconds(b);
    }

    private int indexOfBoundAtOrOver(Duration limit) {
        double s = limit.toNanos() / 1e9;
        for (int i = 0; i < bounds.length; i++) {
            if (bounds[i] >= s * (1 - 1e-9)) {
                return i;
            }
        }
        return bounds.length - 1;
    }

    /** This minus an earlier histogram of the same selection: the ops in between. */
    public OpHistogram minus(OpHistogram earlier) {
        if (earlier.count() == 0) {
            return this;
        }
        if (!Arrays.equals(bounds, earlier.bounds)) {
            throw new IllegalArgumentException("the two histograms of " + selection + " have different buckets: "
                    + Arrays.toString(earlier.bounds) + " then " + Arrays.toString(bounds));
        }
        long[] diff = new long[cumulative.length];
        for (int i = 0; i < diff.length; i++) {
            diff[i] = cumulative[i] - earlier.cumulative[i];
            if (diff[i] < 0) {
                throw new IllegalArgumentException("the later snapshot of " + selection + " has fewer ops than the"
                        + " earlier one: was the broker restarted between them?");
            }
        }
        return new OpHistogram(selection, bounds, diff, sumSeconds - earlier.sumSeconds);
    }

    /** The ops of both histograms together (same selection and buckets): e.g. the rounds of a comparison merged. */
    public OpHistogram plus(OpHistogram other) {
        if (other.count() == 0) {
            return this;
        }
        if (count() == 0) {
            return other;
        }
        if (!Arrays.equals(bounds, other.bounds)) {
            throw new IllegalArgumentException("the two histograms of " + selection + " have different buckets: "
                    + Arrays.toString(bounds) + " and " + Arrays.toString(other.bounds));
        }
        long[] sum = new long[cumulative.length];
        for (int i = 0; i < sum.length; i++) {
            sum[i] = cumulative[i] + other.cumulative[i];
        }
        return new OpHistogram(selection, bounds, sum, sumSeconds + other.sumSeconds);
    }

    /** The non-empty buckets, one a line: what a failure message shows. */
    public String table() {
        StringBuilder sb = new StringBuilder("histogram of " + selection + ": " + count() + " ops, sum "
                + Percentile.format(sum()) + "\n");
        long previous = 0;
        for (int i = 0; i < bounds.length; i++) {
            long n = cumulative[i] - previous;
            previous = cumulative[i];
            if (n > 0) {
                String lower = i == 0 ? "0" : Percentile.format(seconds(bounds[i - 1]));
                String upper = Double.isInfinite(bounds[i]) ? "+Inf" : Percentile.format(seconds(bounds[i]));
                sb.append(String.format(Locale.ROOT, "  (%s, %s]: %d%n", lower, upper, n));
            }
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return table();
    }

    private static Duration seconds(double s) {
        return Duration.ofNanos(Math.round(s * 1e9));
    }
}
