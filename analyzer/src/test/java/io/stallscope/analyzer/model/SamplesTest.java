package io.stallscope.analyzer.model;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** The compact sample store: blocks grouped by thread, lanes across blocks, microsecond times, far-apart times, sorting. */
class SamplesTest {
    static final long T0 = 1_700_000_000_000_000_000L;

    @Test
    void lanesRunAcrossBlocksToTheMicrosecond() {
        Samples s = new Samples();
        SampleBlock.Builder b = new SampleBlock.Builder();
        int[] stacks = new int[7_000];
        for (int i = 0; i < stacks.length; i++) stacks[i] = i;
        for (int i = 0; i < 10_000; i++) {
            // Another thread's samples interleaved: the block groups them apart.
            b.add(T0 + i * 1_000_500L, 3, i % 7, (byte) (i % 3), 1 + i % 5);
            b.add(T0 + i * 1_000_500L + 7, 5, 1, (byte) 0, 1);
            if (i == 4_999 || i == 9_999) {
                SampleBlock block = b.build();
                block.remap(new int[] {0, 1, 2, 3, 4, 5}, stacks);
                s.add(block);
            }
        }
        s.sort();
        assertThat(s.size()).isEqualTo(20_000);
        Samples.Lane l = s.lane(3);
        assertThat(l.size()).isEqualTo(10_000);
        for (int i = 0; i < 10_000; i++) {
            assertThat(Math.abs(l.time(i) - (T0 + i * 1_000_500L))).isLessThan(1000);
            assertThat(l.stack(i)).isEqualTo(i % 7);
            assertThat(l.weight(i)).isEqualTo(1 + i % 5);
            assertThat(l.state(i)).isEqualTo(State.of(i % 3));
        }
        assertThat(l.time(0)).isEqualTo(T0);
        assertThat(l.firstAtOrAfter(T0 + 4_002_000L)).isEqualTo(4);
        assertThat(l.firstAtOrAfter(T0 + 4_002_001L)).isEqualTo(5);
        assertThat(l.firstAtOrAfter(T0 + 5_000L * 1_000_500L)).isEqualTo(5_000);
        assertThat(l.firstAtOrAfter(Long.MAX_VALUE)).isEqualTo(10_000);
        // A cursor walks across the two blocks as indexing does.
        Samples.Cursor c = l.cursor(4_990);
        for (int i = 4_990; i < 10_000; i++) {
            assertThat(c.next()).isTrue();
            assertThat(c.index()).isEqualTo(i);
            assertThat(c.time()).isEqualTo(l.time(i));
            assertThat(c.stack()).isEqualTo(l.stack(i));
        }
        assertThat(c.next()).isFalse();
        assertThat(s.lane(99).size()).isZero();
        assertThat(s.lane(99).cursor(0).next()).isFalse();
    }

    @Test
    void overlappingBlocksAndFarApartSamplesSort() {
        // Two overlapping "chunks" an hour long each: beyond the 35 minutes a block's int offsets span.
        Samples s = new Samples();
        Random r = new Random(7);
        long hour = 3_600_000_000_000L;
        int[] stacks = new int[6_000];
        for (int i = 0; i < stacks.length; i++) stacks[i] = i;
        for (int chunk = 0; chunk < 2; chunk++) {
            SampleBlock.Builder b = new SampleBlock.Builder();
            for (int i = chunk; i < 6_000; i += 2) {
                long t = T0 + (chunk == 0 ? 0 : hour / 2) + (long) r.nextInt(1_000_000) * 3_600_000L;
                b.add(t, 0, i, (byte) 0, 1);
            }
            SampleBlock block = b.build();
            block.remap(new int[] {0}, stacks);
            s.add(block);
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
    void aThreadsRunIsSortedStably() {
        SampleBlock.Builder b = new SampleBlock.Builder();
        long[] times = {10, 30, 20, 20, 50, 40};
        for (int i = 0; i < times.length; i++) b.add(T0 + times[i] * 1000, 0, i, (byte) 0, 1);
        SampleBlock block = b.build();
        int[] order = new int[times.length];
        for (int i = 0; i < order.length; i++) order[i] = block.stack(i);
        assertThat(order).containsExactly(0, 2, 3, 1, 5, 4);
    }

    @Test
    void aRunFarOutOfOrderFallsBackToAStableMergeSort() {
        SampleBlock.Builder b = new SampleBlock.Builder();
        int n = 5_000;
        for (int i = 0; i < n; i++) b.add(T0 + (long) (n - i / 2) * 1000, 0, i, (byte) 0, 1);
        SampleBlock block = b.build();
        for (int i = 1; i < n; i++) {
            assertThat(block.time(i)).isGreaterThanOrEqualTo(block.time(i - 1));
            if (block.time(i) == block.time(i - 1)) assertThat(block.stack(i)).isGreaterThan(block.stack(i - 1));
        }
    }
}
