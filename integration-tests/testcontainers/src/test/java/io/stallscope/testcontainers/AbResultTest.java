package io.stallscope.testcontainers;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static io.stallscope.testcontainers.OpHistogramTest.histogramOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The verdict of a side-by-side comparison, on histograms whose true percentiles are known. */
class AbResultTest {
    /** 10,000 ops of {@code fast} seconds with {@code slowOnes} of {@code slow}: p99.9 is slow when slowOnes > 10. */
    private static OpHistogram ops(double fast, int slowOnes, double slow) {
        double[] v = new double[10_000];
        Arrays.fill(v, fast);
        Arrays.fill(v, 0, slowOnes, slow);
        return histogramOf(v);
    }

    private static AbResult result(OpHistogram[] baseline, OpHistogram[] candidate) {
        List<AbResult.RoundHistograms> rounds = new ArrayList<>();
        for (int i = 0; i < baseline.length; i++) {
            rounds.add(new AbResult.RoundHistograms(baseline[i], candidate[i]));
        }
        return new AbResult("base:1", "cand:2", 0.999, 5000, rounds, List.of("slow op=records_append duration_ms=40"));
    }

    private static OpHistogram[] times(int n, OpHistogram h) {
        OpHistogram[] out = new OpHistogram[n];
        Arrays.fill(out, h);
        return out;
    }

    @Test
    void equalBrokersAndRatiosWithinTheBucketErrorAreNoRegression() {
        AbResult same = result(times(5, ops(1e-4, 20, 3e-3)), times(5, ops(1e-4, 20, 3e-3)));
        assertThat(same.isSlowerBeyond(1.5)).isFalse();
        StallAssertions.assertThat(same).hasNoRegressionBeyond(1.5);
        // 1.8x inside one bucket (2.5-5 ms), as two equal brokers measured here: the buckets cannot tell them apart
        AbResult noise = result(times(5, ops(1e-4, 20, 2.6e-3)), times(5, ops(1e-4, 20, 4.7e-3)));
        assertThat(noise.isSlowerBeyond(1.5)).isFalse();
        // one bucket apart (2.5-5 ms against 5-10 ms) is within the error too: 5 ms is not over 1.5 x 5 ms
        AbResult nextBucket = result(times(5, ops(1e-4, 20, 4.9e-3)), times(5, ops(1e-4, 20, 5.1e-3)));
        assertThat(nextBucket.isSlowerBeyond(1.5)).isFalse();
    }

    @Test
    void aSlowdownPastTheBucketErrorIsARegressionAndFailsTheAssertionWithTheTable() {
        AbResult slower = result(times(5, ops(1e-4, 20, 3e-3)), times(5, ops(1e-4, 20, 30e-3)));
        assertThat(slower.isSlowerBeyond(1.5)).isTrue();
        assertThat(slower.isFasterBeyond(1.5)).isFalse();
        assertThat(slower.roundsSlowerBeyond(1.5)).isEqualTo(5);
        StallAssertions.assertThat(slower).showsRegressionBeyond(1.5);
        assertThatThrownBy(() -> StallAssertions.assertThat(slower).hasNoRegressionBeyond(1.5))
                .hasMessageContaining("in 5 of 5 rounds")
                .hasMessageContaining("merged   baseline")
                .hasMessageContaining("(25.000 ms-50.000 ms")
                .hasMessageContaining("slow op=records_append");
    }

    @Test
    void oneNoisyRoundOfFiveIsNoRegression() {
        OpHistogram[] candidate = times(5, ops(1e-4, 20, 3e-3));
        candidate[2] = ops(1e-4, 40, 0.2);                   // a burst: in the merged rounds its p99.9 is slow too
        AbResult burst = result(times(5, ops(1e-4, 20, 3e-3)), candidate);
        assertThat(burst.roundsSlowerBeyond(1.5)).isEqualTo(1);
        assertThat(burst.isSlowerBeyond(1.5)).isFalse();
    }

    @Test
    void tooFewOpsFailsBothAssertions() {
        AbResult few = result(times(3, histogramOf(new double[] {1e-4, 2e-4})), times(3, ops(1e-4, 20, 3e-3)));
        assertThat(few.tooFewOps()).contains("fewer than 5000 ops").contains("round 1: baseline 2, candidate 10000");
        assertThatThrownBy(() -> StallAssertions.assertThat(few).hasNoRegressionBeyond(1.5)).hasMessageContaining("fewer than 5000");
        assertThatThrownBy(() -> StallAssertions.assertThat(few).showsRegressionBeyond(1.5)).hasMessageContaining("fewer than 5000");
    }

    @Test
    void badArgumentsNameWhatToFix() {
        assertThatThrownBy(() -> AbComparison.of(null, null)).hasMessageContaining("baseline is null");
        assertThatThrownBy(() -> result(times(1, ops(1e-4, 0, 0)), times(1, ops(1e-4, 0, 0))).isSlowerBeyond(0.5))
                .hasMessageContaining("a factor is 1 or more");
    }
}
