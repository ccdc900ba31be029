package io.stallscope.testcontainers;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Arrays;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class OpHistogramTest {
    /** Bounds of the agent's histogram kind (seconds): a few per decade from 10 us to 10 s. */
    static final double[] BOUNDS = {1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 1e-2, 2.5e-2, 5e-2,
            0.1, 0.25, 0.5, 1, 2.5, 5, 10, Double.POSITIVE_INFINITY};

    static OpHistogram histogramOf(double[] seconds) {
        long[] cumulative = new long[BOUNDS.length];
        double sum = 0;
        for (double s : seconds) {
            sum += s;
            for (int i = 0; i < BOUNDS.length; i++) {
                if (s <= BOUNDS[i]) {
                    cumulative[i]++;
                }
            }
        }
        return new OpHistogram("test op", BOUNDS, cumulative, sum);
    }

    /** Exact percentile (nearest rank) of the values themselves. */
    static double exact(double[] sorted, double q) {
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.max(rank, 1) - 1];
    }

    @Test
    void everyPercentileFromBucketsBoundsTheExactValue() {
        Random random = new Random(42);
        for (int run = 0; run < 50; run++) {
            double[] values = new double[1 + random.nextInt(5000)];
            for (int i = 0; i < values.length; i++) {
                values[i] = Math.exp(random.nextGaussian() * 2 - 7); // log-normal around 1 ms, tail into seconds
            }
            OpHistogram h = histogramOf(values);
            double[] sorted = values.clone();
            Arrays.sort(sorted);
            for (double q : new double[] {0.5, 0.9, 0.99, 0.999, 1.0}) {
                Percentile p = h.percentile(q);
                long exactNanos = Math.round(exact(sorted, q) * 1e9);
                assertThat(exactNanos).as("q=%s exact vs %s", q, p).isGreaterThanOrEqualTo(p.lower().toNanos());
                if (p.upper() != null) {
                    assertThat(exactNanos).as("q=%s exact vs %s", q, p).isLessThanOrEqualTo(p.upper().toNanos());
                    assertThat(p.estimate()).isBetween(p.lower(), p.upper());
                }
            }
            assertThat(h.count()).isEqualTo(values.length);
        }
    }

    @Test
    void countsOverALimitFromTheNextBucketBound() {
        OpHistogram h = histogramOf(new double[] {0.001, 0.02, 0.03, 0.2, 3});
        assertThat(h.countOver(Duration.ofMillis(25))).isEqualTo(3);
        assertThat(h.countOver(Duration.ofMillis(20))).isEqualTo(3); // 20 ms rounds up to the 25 ms bound
        assertThat(h.boundAtOrOver(Duration.ofMillis(20))).isEqualTo(Duration.ofMillis(25));
        assertThat(h.countOver(Duration.ofSeconds(20))).isZero();
    }

    @Test
    void theDifferenceHoldsOnlyWhatHappenedInBetween() {
        OpHistogram before = histogramOf(new double[] {0.001, 0.002});
        OpHistogram after = histogramOf(new double[] {0.001, 0.002, 0.3, 0.4});
        OpHistogram diff = after.minus(before);
        assertThat(diff.count()).isEqualTo(2);
        assertThat(diff.p50().lower()).isEqualTo(Duration.ofMillis(250));
        assertThat(diff.sum().toMillis()).isEqualTo(700);
        assertThatThrownBy(() -> before.minus(after)).hasMessageContaining("was the broker restarted");
    }

    @Test
    void anEmptyHistogramHasNoPercentile() {
        assertThat(OpHistogram.empty("x").p999().isEmpty()).isTrue();
        assertThatThrownBy(() -> OpHistogram.empty("x").percentile(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
