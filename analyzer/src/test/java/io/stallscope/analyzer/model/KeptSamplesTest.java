package io.stallscope.analyzer.model;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The samples kept across windows: bounded, the same set on every run, each thread's weight carried over. */
class KeptSamplesTest {
    static final long T0 = SamplesTest.T0;

    /** Window {@code w} of {@code n} samples on threads 1 and 4, thread 4's weights varying as batched idle ticks do. */
    private static Samples window(int w, int n) {
        SampleBlock.Builder b = new SampleBlock.Builder();
        for (int i = 0; i < n; i++) {
            long t = T0 + (long) (w * n + i) * 1_000_000L;
            b.add(t, 1, i % 3, (byte) 0, 1);
            b.add(t + 5_000, 4, 2, (byte) (i % 2), 1 + (i * 7) % 13);
        }
        SampleBlock block = b.build();
        block.remap(new int[] {0, 1, 2, 3, 4}, new int[] {0, 1, 2});
        Samples s = new Samples();
        s.add(block);
        s.sort();
        return s;
    }

    private static long weights(Samples s, int thread) {
        long sum = 0;
        for (Samples.Cursor c = s.lane(thread).cursor(0); c.next(); ) sum += c.weight();
        return sum;
    }

    private static List<Long> times(Samples s, int thread) {
        List<Long> l = new ArrayList<>();
        for (Samples.Cursor c = s.lane(thread).cursor(0); c.next(); ) l.add(c.time());
        return l;
    }

    @Test
    void staysUnderItsBudgetAndKeepsEachThreadsWeight() {
        KeptSamples kept = new KeptSamples(1_000);
        long[] read = new long[5];
        for (int w = 0; w < 10; w++) {
            Samples s = window(w, 700);
            read[1] += weights(s, 1);
            read[4] += weights(s, 4);
            kept.keep(s);
            assertThat(kept.kept()).isLessThanOrEqualTo(1_000);
        }
        // 14,000 samples into 1,000: the stride doubled to 16, and every kept sample is on it.
        assertThat(kept.stride()).isEqualTo(16);
        assertThat(kept.seen()).isEqualTo(14_000);
        assertThat(kept.seen(4)).isEqualTo(7_000);
        Samples all = new Samples();
        kept.addTo(all);
        assertThat(all.lane(1).size()).isEqualTo(7_000 / 16 + 1);
        for (int i = 0; i < all.lane(1).size(); i++) {
            assertThat(all.lane(1).time(i)).isEqualTo(T0 + i * 16L * 1_000_000L);
        }
        // Only the weight of the samples after a thread's last kept one is not in the kept set.
        assertThat(weights(all, 1)).isBetween(read[1] - 15, read[1]);
        assertThat(weights(all, 4)).isBetween(read[4] - 15 * 13, read[4]);
    }

    @Test
    void keepsTheSameSamplesOnEveryRun() {
        KeptSamples a = new KeptSamples(500);
        KeptSamples b = new KeptSamples(500);
        for (int w = 0; w < 6; w++) {
            a.keep(window(w, 300));
            b.keep(window(w, 300));
        }
        Samples sa = new Samples();
        Samples sb = new Samples();
        a.addTo(sa);
        b.addTo(sb);
        assertThat(times(sa, 4)).isEqualTo(times(sb, 4)).isNotEmpty();
        assertThat(weights(sa, 4)).isEqualTo(weights(sb, 4));
    }

    @Test
    void keepsEverythingUnderItsBudget() {
        KeptSamples kept = new KeptSamples(10_000);
        kept.keep(window(0, 1_000));
        Samples all = new Samples();
        kept.addTo(all);
        assertThat(kept.stride()).isEqualTo(1);
        assertThat(times(all, 4)).isEqualTo(times(window(0, 1_000), 4));
        assertThat(weights(all, 4)).isEqualTo(weights(window(0, 1_000), 4));
    }
}
