package io.stallscope.analyzer.util;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** The index sort gives what a stable boxed sort by the same key gives, ties in their first order. */
class IndexSortTest {
    @Test
    void sortsLikeAStableBoxedSort() {
        Random random = new Random(42);
        for (int round = 0; round < 200; round++) {
            int n = random.nextInt(300);
            // Few distinct keys, so that ties are common and stability is tested.
            long[] keys = new long[1000];
            for (int i = 0; i < keys.length; i++) keys[i] = random.nextInt(1 + random.nextInt(20)) - 5;
            int[] idx = new int[n];
            for (int i = 0; i < n; i++) idx[i] = random.nextInt(keys.length);
            sortsAsBoxed(idx, keys, "round " + round);
        }
    }

    /** Sorts {@code idx} by {@code keys} and checks it against a stable sort of the boxed indexes by the same key. */
    private static void sortsAsBoxed(int[] idx, long[] keys, String what) {
        Integer[] boxed = Arrays.stream(idx).boxed().toArray(Integer[]::new);
        Arrays.sort(boxed, Comparator.comparingLong(i -> keys[i]));
        int[] expected = Arrays.stream(boxed).mapToInt(Integer::intValue).toArray();

        IndexSort.stable(idx, i -> keys[i]);

        assertThat(idx).as("%s, %d indexes", what, idx.length).containsExactly(expected);
    }

    @Test
    void mergesAFewRunsInOrderLikeAStableBoxedSort() {
        // A thread's samples from chunks whose times overlap: each run in order, the runs interleaved in time,
        // with equal times across runs (the earlier run's come first).
        Random random = new Random(7);
        for (int round = 0; round < 100; round++) {
            int runs = 2 + random.nextInt(40);
            int n = 0;
            long[] keys = new long[runs * 500];
            for (int r = 0; r < runs; r++) {
                long t = random.nextInt(50);
                for (int len = random.nextInt(500); len > 0; len--) {
                    t += random.nextInt(3);
                    keys[n++] = t;
                }
            }
            int[] idx = new int[n];
            for (int i = 0; i < n; i++) idx[i] = i;
            sortsAsBoxed(idx, keys, "round " + round + ", " + runs + " runs");
        }
    }

    @Test
    void sortsRunsThatOverlapOnlyAtTheirEndsLikeAStableBoxedSort() {
        // A JDK thread's file events: in order, but every few hundred a block committed around a flush comes a
        // second late, so neighbouring runs overlap by that block; equal times meet at the edges.
        Random random = new Random(11);
        for (int round = 0; round < 100; round++) {
            int n = 1 + random.nextInt(20_000);
            long[] keys = new long[n];
            long t = 0;
            for (int i = 0; i < n; i++) {
                t += random.nextInt(4);
                keys[i] = t;
            }
            for (int at = random.nextInt(600); at < n; at += 1 + random.nextInt(600)) {
                int len = Math.min(n - at, 1 + random.nextInt(250));
                long back = random.nextInt(3) == 0 ? keys[at] - keys[Math.max(0, at - len)] : random.nextInt(400);
                for (int i = at; i < at + len; i++) keys[i] -= back;
            }
            int[] idx = new int[n];
            for (int i = 0; i < n; i++) idx[i] = i;
            sortsAsBoxed(idx, keys, "round " + round);
        }
    }

    @Test
    void leavesSortedAndTinyArraysAsTheyAre() {
        int[] none = {};
        IndexSort.stable(none, i -> i);
        int[] one = {7};
        IndexSort.stable(one, i -> -i);
        int[] sorted = {3, 1, 2};
        IndexSort.stable(sorted, i -> 0);
        assertThat(one).containsExactly(7);
        assertThat(sorted).containsExactly(3, 1, 2);
    }
}
