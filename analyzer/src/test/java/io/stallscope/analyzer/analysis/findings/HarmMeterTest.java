package io.stallscope.analyzer.analysis.findings;

import io.stallscope.analyzer.model.Recording;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** What a stall cost the clients: request-path time, weighted by how many stalled at once; background threads cost nothing. */
class HarmMeterTest {
    private static final long MS = 1_000_000L;
    /** Epoch nanos of 2026, as recordings carry them: the edge encoding must not overflow. */
    private static final long T0 = 1_795_800_000_000_000_000L;

    private final Recording rec = new Recording();
    private final int h1 = rec.thread(0, "data-plane-kafka-request-handler-1", 61, 0);
    private final int h2 = rec.thread(0, "data-plane-kafka-request-handler-2", 62, 0);
    private final int net = rec.thread(0, "data-plane-kafka-network-thread-1-ListenerName(PLAINTEXT)-PLAINTEXT-0", 63, 0);
    private final int sched = rec.thread(0, "kafka-scheduler-3", 64, 0);

    @Test
    void togetherCostsMoreThanOneAfterTheOther() {
        HarmMeter together = new HarmMeter(rec);
        together.add(h1, T0, T0 + 100 * MS, Harm.RECORDED_WAIT);
        together.add(h2, T0, T0 + 100 * MS, Harm.RECORDED_WAIT);
        HarmMeter apart = new HarmMeter(rec);
        apart.add(h1, T0, T0 + 100 * MS, Harm.RECORDED_WAIT);
        apart.add(h2, T0 + 100 * MS, T0 + 200 * MS, Harm.RECORDED_WAIT);
        Harm t = together.measure();
        Harm a = apart.measure();
        assertThat(t.stalledNanos()).isEqualTo(a.stalledNanos()).isEqualTo(200 * MS);
        assertThat(t.peak()).isEqualTo(2);
        assertThat(a.peak()).as("touching intervals are not at once").isEqualTo(1);
        assertThat(t.score()).isEqualTo(2 * a.score());
        assertThat(t.text()).isEqualTo("2 request-path threads stalled 200.0 ms in all, up to 2 at once (from lock events)");
    }

    @Test
    void aThreadWaitingTwiceAtOnceCountsOnce() {
        HarmMeter m = new HarmMeter(rec);
        m.add(h1, T0, T0 + 100 * MS, Harm.RECORDED_WAIT);
        m.add(h1, T0 + 50 * MS, T0 + 150 * MS, Harm.SAMPLES);
        m.add(net, T0 + 140 * MS, T0 + 150 * MS, Harm.SAMPLES);
        Harm h = m.measure();
        assertThat(h.stalledNanos()).isEqualTo(160 * MS);
        assertThat(h.threads()).isEqualTo(2);
        assertThat(h.peak()).isEqualTo(2);
    }

    @Test
    void backgroundThreadsHurtNoClient() {
        HarmMeter m = new HarmMeter(rec);
        m.add(sched, T0, T0 + 2_600 * MS, Harm.SAMPLES);
        m.addUntimed(sched, 500 * MS, Harm.RECORDED_WAIT);
        assertThat(m.measure()).isEqualTo(Harm.NONE);
        assertThat(m.measure().hurt()).isFalse();
    }

    /**
     * Grouping by thread with a counting sort gives what the sort of boxed numbers with a comparator gave, on
     * intervals in and out of order, overlapping, touching, repeated, with untimed stalls and background threads.
     */
    @Test
    void measuresAsTheComparatorSortDid() {
        int[] threads = new int[12];
        for (int i = 0; i < threads.length; i++) {
            threads[i] = rec.thread(0, (i % 3 == 2 ? "kafka-scheduler-" : "data-plane-kafka-request-handler-") + (10 + i), 100 + i, 0);
        }
        Random random = new Random(3);
        for (int round = 0; round < 200; round++) {
            HarmMeter m = new HarmMeter(rec);
            List<long[]> added = new ArrayList<>();
            int count = random.nextInt(400);
            boolean inOrder = random.nextBoolean();
            long t = T0;
            for (int i = 0; i < count; i++) {
                int thread = threads[random.nextInt(threads.length)];
                long start = inOrder ? (t += random.nextInt(3) * MS) : T0 + random.nextInt(200) * MS;
                long end = start + random.nextInt(40) * MS;
                m.add(thread, start, end, Harm.RECORDED_WAIT);
                if (end > start && RequestPath.on(rec.threadName(thread))) added.add(new long[] {thread, start, end});
            }
            Set<Integer> untimed = new HashSet<>();
            long untimedNanos = 0;
            if (random.nextInt(4) == 0) {
                int thread = threads[random.nextInt(threads.length)];
                m.addUntimed(thread, 7 * MS, Harm.SAMPLES);
                if (RequestPath.on(rec.threadName(thread))) {
                    untimed.add(thread);
                    untimedNanos += 7 * MS;
                }
            }
            Harm h = m.measure();
            Harm expected = comparatorSorted(added, untimed, untimedNanos);
            assertThat(new long[] {h.stalledNanos(), h.threads(), h.peak()}).as("round %d", round)
                    .containsExactly(expected.stalledNanos(), expected.threads(), expected.peak());
            assertThat(h.score()).as("round %d", round).isEqualTo(expected.score());
        }
    }

    /** HarmMeter.measure as it was before the counting sort: a sort of boxed numbers by thread, then start. */
    private static Harm comparatorSorted(List<long[]> intervals, Set<Integer> overflowThreads, long overflowNanos) {
        int n = intervals.size();
        if (n == 0 && overflowNanos == 0) return Harm.NONE;
        long[] starts = new long[n];
        long[] ends = new long[n];
        int[] threads = new int[n];
        for (int i = 0; i < n; i++) {
            threads[i] = (int) intervals.get(i)[0];
            starts[i] = intervals.get(i)[1];
            ends[i] = intervals.get(i)[2];
        }
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) order[i] = i;
        Arrays.sort(order, (x, y) -> threads[x] != threads[y] ? Integer.compare(threads[x], threads[y]) : Long.compare(starts[x], starts[y]));
        long[] edges = new long[2 * n];
        int e = 0;
        Set<Integer> seen = new HashSet<>(overflowThreads);
        for (int k = 0; k < n; ) {
            int t = threads[order[k]];
            seen.add(t);
            long s = starts[order[k]];
            long end = ends[order[k]];
            k++;
            while (k < n && threads[order[k]] == t && starts[order[k]] <= end) end = Math.max(end, ends[order[k++]]);
            edges[e++] = s << 1 | 1;
            edges[e++] = end << 1;
        }
        Arrays.sort(edges, 0, e);
        long stalled = overflowNanos;
        double score = overflowNanos;
        int at = 0;
        int peak = overflowNanos > 0 ? 1 : 0;
        long last = 0;
        for (int i = 0; i < e; i++) {
            long t = edges[i] >> 1;
            if (at > 0) {
                long dt = t - last;
                stalled += at * dt;
                score += (double) at * at * dt;
            }
            at += (edges[i] & 1) == 1 ? 1 : -1;
            peak = Math.max(peak, at);
            last = t;
        }
        return new Harm(stalled, seen.size(), peak, score, 0);
    }

    @Test
    void pastTheBoundEachIntervalCountsAsIfAlone() {
        HarmMeter m = new HarmMeter(rec);
        for (int i = 0; i < HarmMeter.MAX_INTERVALS + 10; i++) m.add(i % 2 == 0 ? h1 : h2, T0 + i * MS, T0 + i * MS + MS, Harm.RECORDED_WAIT);
        Harm h = m.measure();
        assertThat(h.stalledNanos()).isEqualTo((HarmMeter.MAX_INTERVALS + 10) * MS);
        assertThat(h.score()).as("no interval overlaps another: n = 1 throughout").isEqualTo((double) h.stalledNanos());
    }
}
