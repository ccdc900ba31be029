package io.stallscope.testcontainers;

/**
 * AssertJ entry point: {@code assertThat(Stalls.between(before, after)).op(RECORDS_APPEND).role(REQUEST_HANDLER)
 * .p999().isLessThan(ofMillis(50))}. Failures show the histogram and the container's slow-op log lines.
 */
public final class StallAssertions {
    private StallAssertions() {
    }

    public static StallViewAssert assertThat(StallView view) {
        return new StallViewAssert(view);
    }

    public static OpAssert assertThat(OpQuery query) {
        return new OpAssert(query);
    }

    /** {@code assertThat(comparison.run(...)).hasNoRegressionBeyond(1.5)}: see {@link AbComparison}. */
    public static AbResultAssert assertThat(AbResult result) {
        return new AbResultAssert(result);
    }
}
