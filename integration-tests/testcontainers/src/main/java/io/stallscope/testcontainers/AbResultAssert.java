package io.stallscope.testcontainers;

import org.assertj.core.api.AbstractAssert;

/**
 * Assertions on a side-by-side comparison. Both fail when a round counted too few ops for its percentile: such
 * a comparison proves nothing either way. Failures print each round's percentiles with their buckets, both
 * histograms and the candidate's slow-op lines.
 */
public final class AbResultAssert extends AbstractAssert<AbResultAssert, AbResult> {
    AbResultAssert(AbResult actual) {
        super(actual, AbResultAssert.class);
    }

    /** The candidate is not slower than {@code factor} x the baseline beyond the bucket error (see {@link AbResult}). */
    public AbResultAssert hasNoRegressionBeyond(double factor) {
        requireEnoughOps();
        if (actual.isSlowerBeyond(factor)) {
            failWithMessage("the candidate is slower than %.2fx the baseline beyond the bucket error (merged, and in %d of %d"
                    + " rounds):%n%s", factor, actual.roundsSlowerBeyond(factor), actual.rounds(), actual.evidence());
        }
        return this;
    }

    /** The candidate is slower than {@code factor} x the baseline beyond the bucket error: a regression shows. */
    public AbResultAssert showsRegressionBeyond(double factor) {
        requireEnoughOps();
        if (!actual.isSlowerBeyond(factor)) {
            failWithMessage("expected the candidate slower than %.2fx the baseline beyond the bucket error, but it is not"
                    + " (in %d of %d rounds):%n%s", factor, actual.roundsSlowerBeyond(factor), actual.rounds(), actual.evidence());
        }
        return this;
    }

    private void requireEnoughOps() {
        isNotNull();
        String few = actual.tooFewOps();
        if (few != null) {
            failWithMessage("%s: run the rounds longer (AbComparison.run waits for them) or lower minOpsPerRound%n%s",
                    few, actual.evidence());
        }
    }
}
