package io.stallscope.analyzer.analysis.findings;

import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.Span;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/**
 * Collects the intervals request-path threads spent stalled in one finding and measures its {@link Harm}. Other
 * threads' intervals are dropped as they come. At most {@link #MAX_INTERVALS} are kept (a storm's finding can
 * hold millions of waits); beyond that each counts alone, as if no other thread stalled with it: the score is
 * then a lower bound, never a guess upwards.
 */
final class HarmMeter {
    static final int MAX_INTERVALS = 1 << 16;

    private final Recording rec;
    private long[] starts = new long[64];
    private long[] ends = new long[64];
    private int[] threads = new int[64];
    private int n;
    private long overflowNanos;
    private final Set<Integer> overflowThreads = new HashSet<>();
    private int sources;

    HarmMeter(Recording rec) {
        this.rec = rec;
    }

    /** Thread {@code thread} stalled over [start, end], as read from {@code source} (a {@link Harm} bit). */
    void add(int thread, long start, long end, int source) {
        add(thread, start, end, source, onPath(thread));
    }

    /** Per thread id: 0 not yet looked at, 1 on the request path, 2 not. A finding adds a wait or event each. */
    private byte[] onPath = new byte[0];

    private boolean onPath(int thread) {
        if (thread < 0) return false;
        if (thread >= onPath.length) onPath = Arrays.copyOf(onPath, Math.max(thread + 1, rec.threads.size()));
        byte b = onPath[thread];
        if (b == 0) onPath[thread] = b = (byte) (RequestPath.on(rec.threadName(thread)) ? 1 : 2);
        return b == 1;
    }

    /**
     * Thread {@code thread} stalled {@code nanos} at times no longer known (past a finding's bound on intervals):
     * counted as if alone, so the score stays a lower bound.
     */
    void addUntimed(int thread, long nanos, int source) {
        if (nanos <= 0 || thread < 0 || !RequestPath.on(rec.threadName(thread))) return;
        sources |= source;
        overflowNanos += nanos;
        overflowThreads.add(thread);
    }

    /** An agent op: the span's own role label decides, else its thread's name. */
    void addSpan(Span s) {
        boolean on = s.threadRole() != null ? RequestPath.onRole(s.threadRole()) : RequestPath.on(rec.threadName(s.thread()));
        add(s.thread(), s.start(), s.end(), Harm.SPAN, on);
    }

    private void add(int thread, long start, long end, int source, boolean requestPath) {
        if (end <= start || thread < 0 || !requestPath) return;
        sources |= source;
        if (n == MAX_INTERVALS) {
            overflowNanos += end - start;
            overflowThreads.add(thread);
            return;
        }
        if (n == starts.length) {
            int cap = Math.min(MAX_INTERVALS, n * 2);
            starts = Arrays.copyOf(starts, cap);
            ends = Arrays.copyOf(ends, cap);
            threads = Arrays.copyOf(threads, cap);
        }
        starts[n] = start;
        ends[n] = end;
        threads[n] = thread;
        n++;
    }

    Harm measure() {
        if (n == 0 && overflowNanos == 0) return Harm.NONE;
        // One thread cannot stall twice at once: merge each thread's overlapping intervals first.
        int[] order = byThreadThenStart();
        long[] edges = new long[2 * n];
        int e = 0;
        // The threads stalled: those past the bound, and each other one once (the order groups a thread's intervals).
        int seen = overflowThreads.size();
        int previous = -1;
        for (int k = 0; k < n; ) {
            int t = threads[order[k]];
            if (t != previous && !overflowThreads.contains(t)) seen++;
            previous = t;
            long s = starts[order[k]];
            long end = ends[order[k]];
            k++;
            while (k < n && threads[order[k]] == t && starts[order[k]] <= end) end = Math.max(end, ends[order[k++]]);
            // edges as time << 1, with the low bit set for a start: at one instant an end sorts before a start,
            // so intervals that only touch are not counted as stalled at once
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
        return new Harm(stalled, seen, peak, score, sources);
    }

    /**
     * The intervals' numbers by thread, then by start: grouped by thread with a counting sort, each thread's own
     * sorted only when they did not come in order (they nearly always do: waits and events come by start). Ties
     * stay in any order: merging a thread's overlapping intervals gives the same union either way. It was a sort of
     * boxed numbers with a comparator, the larger part of the findings' time on a storm's 64 k waits.
     */
    int[] byThreadThenStart() {
        int max = -1;
        for (int i = 0; i < n; i++) max = Math.max(max, threads[i]);
        int[] at = new int[max + 2];
        for (int i = 0; i < n; i++) at[threads[i] + 1]++;
        for (int t = 0; t <= max; t++) at[t + 1] += at[t];
        int[] order = new int[n];
        int[] next = Arrays.copyOf(at, max + 1);
        for (int i = 0; i < n; i++) order[next[threads[i]]++] = i;
        for (int t = 0; t <= max; t++) {
            int from = at[t];
            int to = at[t + 1];
            boolean sorted = true;
            for (int k = from + 1; k < to && sorted; k++) sorted = starts[order[k - 1]] <= starts[order[k]];
            if (sorted) continue;
            Integer[] run = new Integer[to - from];
            for (int k = from; k < to; k++) run[k - from] = order[k];
            Arrays.sort(run, (x, y) -> Long.compare(starts[x], starts[y]));
            for (int k = from; k < to; k++) order[k] = run[k - from];
        }
        return order;
    }
}
