package io.stallscope.testcontainers;

import org.assertj.core.api.AbstractAssert;

import java.time.Duration;

/**
 * Assertions on a percentile estimated from buckets. They compare the interpolated estimate and print the
 * bucket bounds it comes from, so a reader sees how much of a pass or failure lies within the bucket error.
 * A percentile of no ops fails every comparison: a test whose workload did not reach the op proves nothing.
 */
public final class PercentileAssert extends AbstractAssert<PercentileAssert, Percentile> {
    private final String evidence;

    PercentileAssert(Percentile actual, String evidence) {
        super(actual, PercentileAssert.class);
        this.evidence = evidence;
    }

    public PercentileAssert isLessThan(Duration limit) {
        requireOps();
        if (actual.estimate().compareTo(limit) >= 0) {
            failWithMessage("expected %s < %s, but it is %s%n%s", actual.label(), Percentile.format(limit), actual, evidence);
        }
        return this;
    }

    public PercentileAssert isLessThanOrEqualTo(Duration limit) {
        requireOps();
        if (actual.estimate().compareTo(limit) > 0) {
            failWithMessage("expected %s <= %s, but it is %s%n%s", actual.label(), Percentile.format(limit), actual, evidence);
        }
        return this;
    }

    public PercentileAssert isGreaterThan(Duration limit) {
        requireOps();
        if (actual.estimate().compareTo(limit) <= 0) {
            failWithMessage("expected %s > %s, but it is %s%n%s", actual.label(), Percentile.format(limit), actual, evidence);
        }
        return this;
    }

    /** Within {@code factor} of another percentile either way: e.g. two Kafka versions' p99.9 within 1.5x. */
    public PercentileAssert isWithinFactorOf(Percentile other, double factor) {
        requireOps();
        if (other.isEmpty()) {
            failWithMessage("the %s to compare with is of no ops", other.label());
        }
        if (!(factor >= 1)) {
            throw new IllegalArgumentException("a factor is 1 or more, not " + factor);
        }
        double a = Math.max(actual.estimate().toNanos(), 1);
        double b = Math.max(other.estimate().toNanos(), 1);
        if (a > b * factor || b > a * factor) {
            failWithMessage("expected %s within %.2fx of %s, but the ratio is %.2f%n%s", actual, factor, other,
                    Math.max(a / b, b / a), evidence);
        }
        return this;
    }

    private void requireOps() {
        isNotNull();
        if (actual.isEmpty()) {
            failWithMessage("no ops to take %s of: the workload did not reach this op%n%s", actual.label(), evidence);
        }
    }
}
