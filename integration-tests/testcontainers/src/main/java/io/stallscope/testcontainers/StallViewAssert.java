package io.stallscope.testcontainers;

import org.assertj.core.api.AbstractAssert;

/** Assertions on a {@link StallView}: pick the op first. */
public final class StallViewAssert extends AbstractAssert<StallViewAssert, StallView> {
    StallViewAssert(StallView actual) {
        super(actual, StallViewAssert.class);
    }

    public OpAssert op(Op op) {
        isNotNull();
        return new OpAssert(actual.op(op));
    }
}
