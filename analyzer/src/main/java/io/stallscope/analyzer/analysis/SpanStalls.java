package io.stallscope.analyzer.analysis;

import io.stallscope.analyzer.model.Span;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Anchors waits on the agent's spans: a wait whose holder (recorded or inferred) is thread T, overlapping a span
 * on T, was caused by T's operation (a records_append stuck in write(2) under the partition lock). Waits are
 * added one by one as they are found; only spans that caused waiting get a {@link Stall}.
 */
final class SpanStalls {
    /** Per thread id: its spans sorted by start, and the longest one (bounds the backwards scan). */
    private final Map<Integer, Span[]> byThread;
    private final Map<Integer, Long> longest;
    private final Map<Span, Stall> stalls = new IdentityHashMap<>();

    private SpanStalls(SpanStalls index) {
        this.byThread = index.byThread;
        this.longest = index.longest;
    }

    /** An empty tally over the same (read-only) span index, for one part of the analysis. */
    SpanStalls part() {
        return new SpanStalls(this);
    }

    /** Adds another part's tally; parts merged in the order of their waits give the one-by-one result. */
    void merge(SpanStalls o) {
        o.stalls.forEach((span, st) -> {
            Stall mine = stalls.get(span);
            if (mine == null) stalls.put(span, st);
            else mine.merge(st);
        });
    }

    SpanStalls(List<Span> spans, Options o) {
        byThread = new HashMap<>();
        longest = new HashMap<>();
        Map<Integer, List<Span>> lists = new HashMap<>();
        for (Span s : spans) {
            if (s.thread() < 0 || s.end() < o.from() || s.start() > o.to()) continue;
            lists.computeIfAbsent(s.thread(), k -> new ArrayList<>()).add(s);
            longest.merge(s.thread(), s.duration(), Math::max);
        }
        lists.forEach((t, l) -> {
            Span[] a = l.toArray(new Span[0]);
            Arrays.sort(a, Comparator.comparingLong(Span::start).thenComparingLong(Span::end));
            byThread.put(t, a);
        });
    }

    void add(Wait w) {
        if (w.holder == null) return;
        Span[] spans = byThread.get(w.holder.thread());
        if (spans == null) return;
        long reach = w.start - longest.get(w.holder.thread());
        // The last span starting before the wait ends, then back while a span could still reach the wait.
        int i = lastStartingBefore(spans, w.end);
        for (; i >= 0 && spans[i].start() >= reach; i--) {
            Span s = spans[i];
            long overlap = Math.min(s.end(), w.end) - Math.max(s.start(), w.start);
            if (overlap <= 0) continue;
            stalls.computeIfAbsent(s, Stall::new).add(w, overlap);
        }
    }

    private static int lastStartingBefore(Span[] spans, long t) {
        int lo = 0, hi = spans.length - 1, found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (spans[mid].start() < t) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    /** Spans that made others wait, the most waiting caused first. */
    List<Stall> stalls() {
        List<Stall> l = new ArrayList<>(stalls.values());
        l.sort(Comparator.comparingLong((Stall s) -> s.waitNanos).reversed()
                .thenComparingLong(s -> s.span.start()).thenComparingInt(s -> s.span.thread()));
        return l;
    }

    /** One span and the waits its thread caused while inside it (only the overlapping part of each wait counts). */
    static final class Stall {
        final Span span;
        long waitNanos;
        int waitCount;
        long longestWait;
        /** Waiting thread -> {nanos, waits}. */
        final Map<Integer, long[]> waiters = new HashMap<>();
        /** Lock label -> {nanos}; and the site each lock is taken at. */
        final Map<String, long[]> locks = new LinkedHashMap<>();
        final Map<String, String> sites = new HashMap<>();
        /** The holder attribution behind the longest overlapping wait, preferring one in a storage call. */
        Holder telling;
        private long tellingRank = -1;

        Stall(Span span) {
            this.span = span;
        }

        void add(Wait w, long overlap) {
            waitNanos += overlap;
            waitCount++;
            longestWait = Math.max(longestWait, overlap);
            long[] n = waiters.computeIfAbsent(w.thread, k -> new long[2]);
            n[0] += overlap;
            n[1]++;
            locks.computeIfAbsent(w.lockLabel, k -> new long[1])[0] += overlap;
            sites.putIfAbsent(w.lockLabel, w.siteLabel);
            long rank = overlap + (w.holder.op().storage() ? Long.MAX_VALUE / 4 : 0);
            if (rank > tellingRank) {
                tellingRank = rank;
                telling = w.holder;
            }
        }

        void merge(Stall o) {
            waitNanos += o.waitNanos;
            waitCount += o.waitCount;
            longestWait = Math.max(longestWait, o.longestWait);
            o.waiters.forEach((t, v) -> {
                long[] n = waiters.computeIfAbsent(t, k -> new long[2]);
                n[0] += v[0];
                n[1] += v[1];
            });
            o.locks.forEach((l, v) -> locks.computeIfAbsent(l, k -> new long[1])[0] += v[0]);
            o.sites.forEach(sites::putIfAbsent);
            if (o.tellingRank > tellingRank) {
                tellingRank = o.tellingRank;
                telling = o.telling;
            }
        }

        /** The lock most of the waiting was for. */
        String mainLock() {
            return locks.entrySet().stream().max(Comparator.comparingLong(e -> e.getValue()[0])).map(Map.Entry::getKey).orElse("?");
        }
    }
}
