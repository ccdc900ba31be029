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
    void aLaneOfOverlappingBlocksSortsAsAStableSortOfItsRuns() {
        // Few blocks are merged by their heads, many go through the builder's sort: both give the runs one after
        // the other sorted stably by the lane's own microseconds (within one: the earlier block's first).
        for (int blocks : new int[] {2, 3, 8, 9, 12}) {
            Random random = new Random(blocks);
            Samples s = new Samples();
            java.util.List<long[]> all = new java.util.ArrayList<>(); // time, stack, weight, state
            for (int k = 0; k < blocks; k++) {
                SampleBlock.Builder b = new SampleBlock.Builder();
                long t = T0 + random.nextInt(50) * 1_000L + random.nextInt(1_000);
                for (int i = random.nextInt(400); i > 0; i--) {
                    t += random.nextInt(3) * 1_000L;
                    int stack = all.size() % 1_000;
                    b.add(t, 0, stack, (byte) (stack % 3), 1 + stack % 4);
                    all.add(new long[] {t, stack, 1 + stack % 4, stack % 3});
                }
                SampleBlock block = b.build();
                int[] stacks = new int[1_000];
                for (int i = 0; i < stacks.length; i++) stacks[i] = i;
                block.remap(new int[] {4}, stacks);
                s.add(block);
            }
            // What the blocks hold: each block's times to the microsecond after its own first sample.
            java.util.List<long[]> expected = new java.util.ArrayList<>();
            int at = 0;
            for (SampleBlock block : s.blocks()) {
                for (int i = 0; i < block.size(); i++) {
                    long[] e = all.get(at++).clone();
                    e[0] = block.time(i);
                    expected.add(e);
                }
            }
            boolean inOrder = true;
            for (int i = 1; i < expected.size(); i++) inOrder &= expected.get(i - 1)[0] <= expected.get(i)[0];
            assertThat(inOrder).as("%d blocks overlap", blocks).isFalse();
            long first = expected.stream().mapToLong(e -> e[0]).min().getAsLong();
            // Sorted by the lane's own microseconds: samples of two blocks within one keep the blocks' order.
            expected.sort(java.util.Comparator.comparingLong(e -> (e[0] - first) / 1_000));

            s.sort();

            Samples.Lane l = s.lane(4);
            assertThat(l.size()).as("%d blocks", blocks).isEqualTo(expected.size());
            for (int i = 0; i < expected.size(); i++) {
                long[] e = expected.get(i);
                assertThat(l.time(i)).as("%d blocks, sample %d", blocks, i).isEqualTo(first + (e[0] - first) / 1_000 * 1_000);
                assertThat(l.stack(i)).as("%d blocks, sample %d", blocks, i).isEqualTo((int) e[1]);
                assertThat(l.weight(i)).isEqualTo((int) e[2]);
                assertThat(l.state(i)).isEqualTo(State.of((int) e[3]));
            }
        }
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
