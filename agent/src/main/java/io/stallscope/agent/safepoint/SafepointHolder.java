package io.stallscope.agent.safepoint;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.bootstrap.OpTrace;
import io.stallscope.agent.bootstrap.ThreadState;
import io.stallscope.agent.model.LogPaths;
import io.stallscope.agent.model.SubjectPaths;
import io.stallscope.agent.model.TopicPartition;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The thread that most likely held a slow safepoint up: one whose index lookup ran all through the synchronization.
 * A lookup reads a memory-mapped index in Java code, so a page fault there keeps the thread from its safepoint poll
 * while every other thread waits; a thread in a system call (a write, a sendfile) is already safe and cannot. Where
 * no lookup covered the sync, there is no holder: the line then names none, as the slow-op lines do.
 */
final class SafepointHolder {
    /** JFR's clock and System.nanoTime are converted through the wall clock: allow for that much disagreement. */
    static final long SLACK_NANOS = 2_000_000L;

    /** A sync's start, in epoch nanoseconds as JFR gives it, on System.nanoTime's scale as the hooks time ops. */
    static long toNanoTime(long epochNanos) {
        long nano = System.nanoTime();
        java.time.Instant now = java.time.Instant.now();
        return epochNanos + (nano - (now.getEpochSecond() * 1_000_000_000L + now.getNano()));
    }

    /** The inverse of {@link #toNanoTime}. */
    static long toEpochNanos(long nanoTime) {
        long nano = System.nanoTime();
        java.time.Instant now = java.time.Instant.now();
        return nanoTime - nano + now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    final String thread;
    final int op;
    final long startNanos;
    /** {@link OpTrace#RUNNING} for a lookup still open when the holder was looked for. */
    final long endNanos;
    final String path;

    private SafepointHolder(String thread, int op, long startNanos, long endNanos, String path) {
        this.thread = thread;
        this.op = op;
        this.startNanos = startNanos;
        this.endNanos = endNanos;
        this.path = path;
    }

    /** One thread's ops as {@link ThreadState#read} copied them. */
    static final class Candidate {
        final String thread;
        final OpTrace trace;

        Candidate(String thread, OpTrace trace) {
            this.thread = thread;
            this.trace = trace;
        }
    }

    /** The threads alive under the hooks now, their ops copied; a thread whose copy tore is left out. */
    static List<Candidate> liveThreads(List<ThreadState> states) {
        List<Candidate> out = new ArrayList<>();
        for (ThreadState state : states) {
            Thread owner = state.owner();
            OpTrace trace = new OpTrace();
            if (owner != null && state.read(trace)) {
                out.add(new Candidate(owner.getName(), trace));
            }
        }
        return out;
    }

    /**
     * The lookup that began before the sync and had not ended before it did (nanoTime base), the one that began
     * first when several did; null when none. A lookup parked all through the sync in its wait for the index's remap
     * lock ({@link Op#INDEX_REMAP_WAIT}) was at a safepoint already and held nothing up.
     */
    static SafepointHolder find(long syncStartNanos, long syncEndNanos, List<Candidate> threads) {
        return find(syncStartNanos, syncEndNanos, SLACK_NANOS, threads);
    }

    /** As {@link #find(long, long, List)}, with the sync's place in time known to within {@code slackNanos}. */
    static SafepointHolder find(long syncStartNanos, long syncEndNanos, long slackNanos, List<Candidate> threads) {
        SafepointHolder best = null;
        for (Candidate c : threads) {
            OpTrace t = c.trace;
            if (parkedThrough(t, syncStartNanos, syncEndNanos, slackNanos)) {
                continue;
            }
            for (int i = 0; i < t.size(); i++) {
                if (t.op(i) != Op.INDEX_LOOKUP) {
                    continue;
                }
                long start = t.start(i);
                long end = t.end(i);
                if (covers(start, end, syncStartNanos, syncEndNanos, slackNanos) && (best == null || start < best.startNanos)) {
                    best = new SafepointHolder(c.thread, t.op(i), start, end, SubjectPaths.pathOf(t.subject(i)));
                }
            }
        }
        return best;
    }

    /**
     * For several safepoints merged between two reads of HotSpot's counters: where in [windowStart, windowEnd] the
     * slow one fell is not known, only that it took at least {@code minCoverNanos} (the merged sync time over the
     * safepoints, less the slack). The holder is then the lookup that overlapped the window for at least that long,
     * the longest when several did; a thread parked in the remap-lock wait for that long held nothing up. Null when no
     * lookup did.
     */
    static SafepointHolder findWithin(long windowStart, long windowEnd, long minCoverNanos, List<Candidate> threads) {
        SafepointHolder best = null;
        long bestOverlap = 0;
        for (Candidate c : threads) {
            OpTrace t = c.trace;
            boolean parked = false;
            for (int i = 0; i < t.size() && !parked; i++) {
                parked = t.op(i) == Op.INDEX_REMAP_WAIT && overlap(t.start(i), t.end(i), windowStart, windowEnd) >= minCoverNanos;
            }
            if (parked) {
                continue;
            }
            for (int i = 0; i < t.size(); i++) {
                if (t.op(i) != Op.INDEX_LOOKUP) {
                    continue;
                }
                long overlap = overlap(t.start(i), t.end(i), windowStart, windowEnd);
                if (overlap >= minCoverNanos && overlap > bestOverlap) {
                    best = new SafepointHolder(c.thread, t.op(i), t.start(i), t.end(i), SubjectPaths.pathOf(t.subject(i)));
                    bestOverlap = overlap;
                }
            }
        }
        return best;
    }

    private static long overlap(long start, long end, long windowStart, long windowEnd) {
        return Math.min(end == OpTrace.RUNNING ? windowEnd : end, windowEnd) - Math.max(start, windowStart);
    }

    private static boolean parkedThrough(OpTrace t, long syncStartNanos, long syncEndNanos, long slackNanos) {
        for (int i = 0; i < t.size(); i++) {
            if (t.op(i) == Op.INDEX_REMAP_WAIT && covers(t.start(i), t.end(i), syncStartNanos, syncEndNanos, slackNanos)) {
                return true;
            }
        }
        return false;
    }

    private static boolean covers(long start, long end, long syncStartNanos, long syncEndNanos, long slackNanos) {
        return start <= syncStartNanos + slackNanos && (end == OpTrace.RUNNING || end >= syncEndNanos - slackNanos);
    }

    /** The clause the slow line ends with, e.g. "behind index_lookup 230.1 ms of orders-3 (...index) on thread "x"". */
    String describe() {
        StringBuilder sb = new StringBuilder("behind index_lookup");
        if (endNanos != OpTrace.RUNNING) {
            sb.append(String.format(Locale.ROOT, " %.3f ms", (endNanos - startNanos) / 1e6));
        } else {
            sb.append(" still running");
        }
        TopicPartition tp = LogPaths.topicPartition(path);
        if (tp != null) {
            sb.append(" of ").append(tp.topic()).append('-').append(tp.partition());
        }
        if (path != null) {
            sb.append(" (").append(path).append(')');
        }
        sb.append(" on thread \"").append(thread).append('"');
        return sb.toString();
    }
}
