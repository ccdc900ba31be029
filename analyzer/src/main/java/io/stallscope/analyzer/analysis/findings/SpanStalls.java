package io.stallscope.analyzer.analysis.findings;

import io.stallscope.analyzer.analysis.Options;
import io.stallscope.analyzer.analysis.waits.Holder;
import io.stallscope.analyzer.analysis.waits.Wait;
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
public final class SpanStalls {
    /** Per thread id: its spans sorted by start, and the longest one (bounds the backwards scan). */
    private final Map<Integer, Span[]> byThread;
    private final Map<Integer, Long> longest;
    private final Map<Span, Stall> stalls = new IdentityHashMap<>();
    /** The agent's op around Kafka's append as a whole (issue 41). */
    static final String LOCK_WRAPPER_OP = "log_append";

    private SpanStalls(SpanStalls index) {
        this.byThread = index.byThread;
        this.longest = index.longest;
    }

    /** An empty tally over the same (read-only) span index, for one part of the analysis. */
    public SpanStalls part() {
        return new SpanStalls(this);
    }

    /** Adds another part's tally; parts merged in the order of their waits give the one-by-one result. */
    public void merge(SpanStalls o) {
        o.stalls.forEach((span, st) -> {
            Stall mine = stalls.get(span);
            if (mine == null) stalls.put(span, st);
            else mine.merge(st);
        });
    }

    public SpanStalls(List<Span> spans, Options o) {
        byThread = new HashMap<>();
        longest = new HashMap<>();
        Map<Integer, List<Span>> lists = new HashMap<>();
        for (Span s : spans) {
            if (s.thread() < 0 || s.end() < o.from() || s.start() > o.to()) continue;
            // The agent's log_append spans the whole append under the log's lock: its own time is a wait for that
            // lock, so it caused no wait; the op inside it that held the lock (a roll, a write) is the anchor.
            if (LOCK_WRAPPER_OP.equals(s.opName())) continue;
            lists.computeIfAbsent(s.thread(), k -> new ArrayList<>()).add(s);
            longest.merge(s.thread(), s.duration(), Math::max);
        }
        lists.forEach((t, l) -> {
            Span[] a = l.toArray(new Span[0]);
            Arrays.sort(a, Comparator.comparingLong(Span::start).thenComparingLong(Span::end));
            byThread.put(t, a);
        });
    }

    public void add(Wait w) {
        if (w.holder == null || byThread.isEmpty()) return;
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

    /**
     * Adds the convoy behind each stalled span. JFR's previousOwner names only the thread that released the monitor
     * just before the waiter got it: in a convoy A (stalled) -> B -> C -> D only B names A, though C and D queued
     * during A's hold too. A held the monitor at least from the span's start until the first wait naming it (and
     * overlapping the span) ended, or the span's end if later; a recorded wait by another thread on the same lock that
     * overlaps that hold and ended no earlier than it (a waiter that got the monitor meanwhile was not waiting for A)
     * counts for the overlap. Run once, after the waits were added, over the recorded waits in event order.
     */
    public void addConvoys(List<Wait> recorded, java.util.function.Predicate<Wait> counted) {
        Map<String, List<Stall>> holding = new HashMap<>();
        for (Stall st : stalls.values()) st.holdEnds.keySet().forEach(k -> holding.computeIfAbsent(k, x -> new ArrayList<>()).add(st));
        if (holding.isEmpty()) return;
        Map<String, List<Wait>> byLock = new HashMap<>();
        for (Wait w : recorded) {
            if (holding.containsKey(w.lockKey) && counted.test(w)) byLock.computeIfAbsent(w.lockKey, k -> new ArrayList<>()).add(w);
        }
        byLock.forEach((key, waits) -> {
            waits.sort(Comparator.comparingLong((Wait w) -> w.start).thenComparingInt(w -> w.thread));
            long longestWait = waits.stream().mapToLong(Wait::duration).max().orElse(0);
            for (Stall st : holding.get(key)) {
                int holder = st.span.thread();
                long from = st.span.start();
                long to = Math.max(st.span.end(), st.holdEnds.get(key));
                // Waits starting before the hold ends, back while one could still reach into it.
                int lo = 0, hi = waits.size() - 1, i = -1;
                while (lo <= hi) {
                    int mid = (lo + hi) >>> 1;
                    if (waits.get(mid).start < to) {
                        i = mid;
                        lo = mid + 1;
                    } else {
                        hi = mid - 1;
                    }
                }
                for (; i >= 0 && waits.get(i).start >= from - longestWait; i--) {
                    Wait w = waits.get(i);
                    if (w.thread == holder || w.recordedOwner == holder || w.end < to) continue;
                    long overlap = Math.min(w.end, to) - Math.max(w.start, from);
                    if (overlap > 0) st.addConvoy(w, overlap, Math.max(w.start, from));
                }
            }
        });
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
    public List<Stall> stalls() {
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
        /** Waiting thread -> {nanos, waits, how (bits: RECORDED, CONVOY, SAMPLED)}. */
        final Map<Integer, long[]> waiters = new HashMap<>();
        static final long RECORDED = 1, CONVOY = 2, SAMPLED = 4;
        /**
         * Per lock whose recorded waits name the span's thread as previousOwner: when the first of them ended. Each
         * got the monitor after the thread released it, so it held the monitor at least until then. (Not the last: in
         * a real capture two waiters of one convoy both named the stalled thread.)
         */
        final Map<String, Long> holdEnds = new HashMap<>();
        /** Lock label -> {nanos}; and the site each lock is taken at. */
        final Map<String, long[]> locks = new LinkedHashMap<>();
        final Map<String, String> sites = new HashMap<>();
        /**
         * The waits' overlapping parts as {thread, start, end, source}, for the clients' cost (at most
         * {@link #MAX_VICTIMS}; past that, per thread the nanos alone in {@code untimed}).
         */
        final List<long[]> victims = new ArrayList<>();
        final Map<Integer, long[]> untimed = new HashMap<>();
        static final int MAX_VICTIMS = 4096;
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
            boolean recorded = w.recorded && w.recordedOwner == span.thread();
            tally(w, overlap, recorded ? RECORDED : SAMPLED);
            victim(w, Math.max(w.start, span.start()), overlap);
            if (recorded) holdEnds.merge(w.lockKey, w.end, Math::min);
            long rank = overlap + (w.holder.op().storage() ? Long.MAX_VALUE / 4 : 0);
            if (rank > tellingRank) {
                tellingRank = rank;
                telling = w.holder;
            }
        }

        /** A wait in the convoy behind the span's thread: it queued on the same monitor while that thread held it. */
        void addConvoy(Wait w, long overlap, long from) {
            waitNanos += overlap;
            waitCount++;
            longestWait = Math.max(longestWait, overlap);
            tally(w, overlap, CONVOY);
            victim(w, from, overlap);
        }

        private void victim(Wait w, long from, long overlap) {
            int source = w.recorded ? Harm.RECORDED_WAIT
                    : Harm.INFERRED_WAIT;
            if (victims.size() < MAX_VICTIMS) victims.add(new long[] {w.thread, from, from + overlap, source});
            else {
                long[] u = untimed.computeIfAbsent(w.thread, k -> new long[2]);
                u[0] += overlap;
                u[1] |= source;
            }
        }

        private void tally(Wait w, long overlap, long how) {
            long[] n = waiters.computeIfAbsent(w.thread, k -> new long[3]);
            n[0] += overlap;
            n[1]++;
            n[2] |= how;
            locks.computeIfAbsent(w.lockLabel, k -> new long[1])[0] += overlap;
            sites.putIfAbsent(w.lockLabel, w.siteLabel);
        }

        void merge(Stall o) {
            waitNanos += o.waitNanos;
            waitCount += o.waitCount;
            longestWait = Math.max(longestWait, o.longestWait);
            o.waiters.forEach((t, v) -> {
                long[] n = waiters.computeIfAbsent(t, k -> new long[3]);
                n[0] += v[0];
                n[1] += v[1];
                n[2] |= v[2];
            });
            o.holdEnds.forEach((k, v) -> holdEnds.merge(k, v, Math::min));
            o.locks.forEach((l, v) -> locks.computeIfAbsent(l, k -> new long[1])[0] += v[0]);
            o.sites.forEach(sites::putIfAbsent);
            for (long[] v : o.victims) {
                if (victims.size() < MAX_VICTIMS) victims.add(v);
                else {
                    long[] u = untimed.computeIfAbsent((int) v[0], k -> new long[2]);
                    u[0] += v[2] - v[1];
                    u[1] |= v[3];
                }
            }
            o.untimed.forEach((t, v) -> {
                long[] u = untimed.computeIfAbsent(t, k -> new long[2]);
                u[0] += v[0];
                u[1] |= v[1];
            });
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
