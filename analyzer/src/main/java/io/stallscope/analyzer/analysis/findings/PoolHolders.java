package io.stallscope.analyzer.analysis.findings;

import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.Span;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeSet;

/**
 * The remote reads that held the reader pool while a burst of reads waited in its queue, by the agent's own rule
 * (its OverlapRanking for a queue wait): every remote read of the same recorded JVM that held a pool thread for at
 * least {@link #MIN_OVERLAP_NANOS} of the wait, whenever it began. A read that began during the wait counts: the
 * pool's queue is first in, first out, so it was queued ahead and took a thread the wait needed (a burst of fetches
 * queues its reads within microseconds, and the free threads take the first ones just after the rest are queued).
 * Where the agent paired the wait itself (its behind fields: op remote_read, scope pool) the read it named, the one
 * with the longest overlap, is recorded; the others are inferred from the spans' overlap. No read overlapping: no
 * holder, never a guess.
 */
final class PoolHolders {
    /** The agent's: a shorter overlap explains nothing of a wait. */
    static final long MIN_OVERLAP_NANOS = 1_000_000L;

    /**
     * A read that held the pool: its span, or null when only a wait's behind fields name it (its own event is not in
     * the recording: shorter than the agent's jfr.threshold for remote_read, or still running when the recording
     * ended); {@code overlapNanos} its longest overlap with one wait; {@code waits} the waits it held up;
     * {@code recordedWaits} those whose behind fields name it.
     */
    record Holder(Span read, String thread, long overlapNanos, int waits, int recordedWaits) {
        boolean recorded() {
            return recordedWaits > 0;
        }

        long durationNanos() {
            return read == null ? 0 : read.duration();
        }

        /** How long it held its pool thread, as far as known: its span's duration, else its overlap (a lower bound). */
        long heldNanos() {
            return read == null ? overlapNanos : read.duration();
        }
    }

    /**
     * Reads a wait is paired with, at most: a pool has a few dozen threads, each running one read at a time, so a wait
     * reaches it only when it lasted thousands of reads (or in a hostile recording), and the pairing stays linear in it.
     */
    static final int MAX_RUNNING = 1024;

    private final Recording rec;
    /** Per file: its remote reads by start. */
    private final Map<Integer, Span[]> readsByFile = new HashMap<>();

    PoolHolders(List<Span> reads, Recording rec) {
        this.rec = rec;
        Map<Integer, List<Span>> lists = new HashMap<>();
        for (Span r : reads) lists.computeIfAbsent(PoolBursts.fileOf(r, rec), k -> new ArrayList<>()).add(r);
        lists.forEach((f, l) -> {
            Span[] a = l.toArray(new Span[0]);
            Arrays.sort(a, Comparator.comparingLong(Span::start).thenComparingLong(Span::end).thenComparingInt(Span::thread));
            readsByFile.put(f, a);
        });
    }

    /** The burst's holders, the longest read first; a read named by behind fields alone, after those with a span. */
    List<Holder> of(PoolBursts.Burst b) {
        Map<Span, long[]> bySpan = new IdentityHashMap<>();
        List<Span> order = new ArrayList<>();
        Map<String, long[]> byThreadOnly = new LinkedHashMap<>();
        // A sweep over the burst's waits by start. Open: the reads that began by 1 ms before the end of a wait swept
        // so far, by start, less those that ended too soon to hold this wait up, and so every later one (their starts
        // only grow). Those of them that began by 1 ms before this wait's end are its candidates, nearly all holders.
        Span[] reads = readsByFile.getOrDefault(b.file(), new Span[0]);
        TreeSet<Integer> open = new TreeSet<>();
        PriorityQueue<Integer> byEnd = new PriorityQueue<>(Comparator.comparingLong((Integer i) -> reads[i].end()).thenComparingInt(i -> i));
        int next = 0;
        List<Span> waits = new ArrayList<>(b.waits());
        waits.sort(Comparator.comparingLong(Span::start).thenComparingLong(Span::end).thenComparingInt(Span::thread));
        for (Span w : waits) {
            while (next < reads.length && reads[next].start() <= w.end() - MIN_OVERLAP_NANOS) {
                open.add(next);
                byEnd.add(next++);
            }
            while (!byEnd.isEmpty() && reads[byEnd.peek()].end() < w.start() + MIN_OVERLAP_NANOS) open.remove(byEnd.poll());
            List<Span> held = new ArrayList<>();
            if (w.duration() >= MIN_OVERLAP_NANOS) {
                for (int i : open) {
                    Span r = reads[i];
                    if (r.start() > w.end() - MIN_OVERLAP_NANOS || held.size() == MAX_RUNNING) break;
                    // a read under 1 ms long can be open and still overlap less
                    if (overlap(r, w) >= MIN_OVERLAP_NANOS) held.add(r);
                }
            }
            Span named = null;
            Span.Behind behind = w.behind();
            if (behind != null && RemoteOps.READ.equals(behind.op()) && behind.thread() != null) {
                // The agent named the read with the longest overlap on that thread: the same one here, if its span is in.
                // Not a shorter read of that thread (one that began during the wait, say) when the named one's span is
                // not in: its overlap is the agent's, in whole ms, give or take the events' commit.
                long least = (behind.overlapMs() - 1) * 1_000_000L;
                for (Span r : held) {
                    long o = overlap(r, w);
                    if (named(r.thread(), behind.thread()) && o >= least && (named == null || o > overlap(named, w))) named = r;
                }
                if (named == null) {
                    long[] t = byThreadOnly.computeIfAbsent(behind.thread(), k -> new long[3]);
                    t[0] = Math.max(t[0], behind.overlapMs() * 1_000_000L);
                    t[1]++;
                    t[2]++;
                }
            }
            for (Span r : held) {
                long[] h = bySpan.get(r);
                if (h == null) {
                    bySpan.put(r, h = new long[3]);
                    order.add(r);
                }
                h[0] = Math.max(h[0], overlap(r, w));
                h[1]++;
                if (r == named) h[2]++;
            }
        }
        List<Holder> out = new ArrayList<>();
        for (Span r : order) {
            long[] h = bySpan.get(r);
            out.add(new Holder(r, rec.threadName(r.thread()), h[0], (int) h[1], (int) h[2]));
        }
        out.sort(Comparator.comparingLong(Holder::durationNanos).reversed().thenComparingLong(h -> h.read().start())
                .thenComparingInt(h -> h.read().thread()));
        byThreadOnly.forEach((t, h) -> out.add(new Holder(null, t, h[0], (int) h[1], (int) h[2])));
        return out;
    }

    /** The recording's name for the thread, or that name with the suffix that tells apart two threads sharing it. */
    private boolean named(int thread, String name) {
        String n = rec.threadName(thread);
        return n.equals(name) || n.startsWith(name + " ");
    }

    static long overlap(Span a, Span b) {
        return Math.min(a.end(), b.end()) - Math.max(a.start(), b.start());
    }
}
