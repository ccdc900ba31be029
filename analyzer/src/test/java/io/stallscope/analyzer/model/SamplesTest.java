package io.stallscope.analyzer.model;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** The compact sample store: block boundaries, microsecond offsets, far-apart times and sorting. */
class SamplesTest {
    static final long T0 = 1_700_000_000_000_000_000L;

    @Test
    void keepsOrderedSamplesAcrossBlocksToTheMicrosecond() {
        Samples s = new Samples();
        for (int i = 0; i < 10_000; i++) s.add(T0 + i * 1_000_500L, 3, i % 7, State.values()[i % 3], 1 + i % 5);
        s.sort();
        Samples.Lane l = s.lane(3);
        assertThat(l.size()).isEqualTo(10_000);
        for (int i = 0; i < 10_000; i++) {
            assertThat(Math.abs(l.time(i) - (T0 + i * 1_000_500L))).isLessThan(1000);
            assertThat(l.stack(i)).isEqualTo(i % 7);
            assertThat(l.weight(i)).isEqualTo(1 + i % 5);
        }
        assertThat(l.time(0)).isEqualTo(T0);
        assertThat(l.firstAtOrAfter(T0 + 4_002_000L)).isEqualTo(4);
        assertThat(l.firstAtOrAfter(T0 + 4_002_001L)).isEqualTo(5);
        assertThat(s.lane(99).size()).isZero();
    }

    @Test
    void sortsShuffledAndFarApartSamples() {
        // Two overlapping "chunks" an hour long each, interleaved: beyond the 35 minutes a block's int offsets span.
        Samples s = new Samples();
        Random r = new Random(7);
        long hour = 3_600_000_000_000L;
        for (int i = 0; i < 6_000; i++) {
            long t = T0 + (i % 2 == 0 ? 0 : hour / 2) + (long) r.nextInt(1_000_000) * 3_600_000L;
            s.add(t, 0, i, State.RUNNABLE, 1);
        }
        s.sort();
        Samples.Lane l = s.lane(0);
        assertThat(l.size()).isEqualTo(6_000);
        for (int i = 1; i < l.size(); i++) assertThat(l.time(i)).isGreaterThanOrEqualTo(l.time(i - 1));
        // Every sample kept its own stack id through the sort: a permutation of 0..5999.
        boolean[] seen = new boolean[6_000];
        for (int i = 0; i < l.size(); i++) seen[l.stack(i)] = true;
        for (boolean b : seen) assertThat(b).isTrue();
    }

    @Test
    void nearlySortedLanesSortStably() {
        int[] order = {0, 1, 2, 3, 4, 5};
        long[] key = {10, 30, 20, 20, 50, 40};
        Samples.Lane.sortByKey(order, key);
        assertThat(order).containsExactly(0, 2, 3, 1, 5, 4);
    }
}
