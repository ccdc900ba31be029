package io.stallscope.agent.report;

import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

class OpHistogramTest {
    @Test
    void bucketsResolveTenMicrosecondsToTenSeconds() {
        assertThat(OpHistogram.BOUNDS[0]).isEqualTo(10_000L);
        assertThat(OpHistogram.BOUNDS[OpHistogram.BOUNDS.length - 1]).isEqualTo(10_000_000_000L);
        assertThat(OpHistogram.BOUNDS).isSorted().doesNotHaveDuplicates().hasSize(19);
    }

    @Test
    void countsFallIntoTheBucketWhoseUpperBoundTheyDoNotExceed() {
        OpHistogram h = new OpHistogram();
        h.record(1);               // <= 10 us
        h.record(10_000);          // exactly 10 us: same bucket (le is inclusive)
        h.record(10_001);          // next bucket, <= 25 us
        h.record(3_000_000);       // <= 5 ms
        h.record(60_000_000_000L); // over 10 s: +Inf
        long[] c = h.bucketCounts();
        assertThat(c[0]).isEqualTo(2);
        assertThat(c[1]).isEqualTo(1);
        int fiveMs = Arrays.binarySearch(OpHistogram.BOUNDS, 5_000_000L);
        assertThat(c[fiveMs]).isEqualTo(1);
        assertThat(c[c.length - 1]).isEqualTo(1);
        assertThat(h.count()).isEqualTo(5);
        assertThat(h.sumNanos()).isEqualTo(1 + 10_000 + 10_001 + 3_000_000 + 60_000_000_000L);
        assertThat(h.maxNanos()).isEqualTo(60_000_000_000L);
        assertThat(h.quantileUpperBoundSeconds(0.5)).isEqualTo(25e-6);
        assertThat(h.quantileUpperBoundSeconds(0.99)).isInfinite();
    }

    @Test
    void anEmptyHistogramSaysZero() {
        OpHistogram h = new OpHistogram();
        assertThat(h.count()).isZero();
        assertThat(h.maxNanos()).isZero();
        assertThat(h.quantileUpperBoundSeconds(0.99)).isZero();
    }
}
