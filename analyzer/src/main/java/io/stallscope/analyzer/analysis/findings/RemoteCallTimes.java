package io.stallscope.analyzer.analysis.findings;

import io.stallscope.analyzer.model.Span;
import io.stallscope.analyzer.util.Durations;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Where the time of one thread's remote calls went, per op: each call's own time, without the calls the agent timed
 * inside it (a remote_index_load's own time is not its remote_fetch_index calls'). Calls nest by time on one thread,
 * as the agent's ops do: a call inside another began and ended within it, give or take {@link #JITTER_NANOS}.
 */
final class RemoteCallTimes {
    /**
     * A span ends when the agent commits its event, a little after the op ended, and an outer op's event later than
     * its inner ones': so an inner call may seem to begin a few microseconds before the call around it.
     */
    static final long JITTER_NANOS = 1_000_000L;

    /**
     * Calls looked at either side of one for the call around it: an index load makes one fetchIndex per index type, so
     * only a hostile recording has more between a call and its parent, and the grouping stays linear in it.
     */
    static final int MAX_SCAN = 256;

    private RemoteCallTimes() {
    }

    /** One op's calls: how many, their time, and their own time (without the timed calls inside them). */
    record OpTime(String op, int count, long totalNanos, long selfNanos) {
    }

    /** The ops of {@code spans} (one thread's), the most own time first. */
    static List<OpTime> of(List<Span> spans) {
        Map<Span, Span> parents = parents(spans);
        Map<Span, long[]> self = new IdentityHashMap<>();
        for (Span s : spans) self.put(s, new long[] {s.duration()});
        parents.forEach((child, parent) -> self.get(parent)[0] -= child.duration());
        Map<String, long[]> byOp = new LinkedHashMap<>();
        for (Span s : byStart(spans)) {
            long[] t = byOp.computeIfAbsent(s.opName(), k -> new long[3]);
            t[0]++;
            t[1] += s.duration();
            t[2] += Math.max(0, self.get(s)[0]);
        }
        List<OpTime> out = new ArrayList<>();
        byOp.forEach((op, t) -> out.add(new OpTime(op, (int) t[0], t[1], t[2])));
        out.sort(Comparator.comparingLong(OpTime::selfNanos).reversed().thenComparing(OpTime::op));
        return out;
    }

    /**
     * Each nested call's direct parent among {@code spans} (one thread's): the shortest longer call containing it.
     * Calls with none are absent.
     */
    static Map<Span, Span> parents(List<Span> spans) {
        List<Span> sorted = byStart(spans);
        long longest = sorted.stream().mapToLong(Span::duration).max().orElse(0);
        Map<Span, Span> out = new IdentityHashMap<>();
        for (int i = 0; i < sorted.size(); i++) {
            Span s = sorted.get(i);
            Span parent = null;
            // a parent starts at most the longest call before it, and at most the jitter after it; within MAX_SCAN calls
            for (int j = i - 1; j >= 0 && j >= i - MAX_SCAN && sorted.get(j).start() >= s.start() - longest; j--) parent = closer(parent, sorted.get(j), s);
            for (int j = i + 1; j < sorted.size() && j <= i + MAX_SCAN && sorted.get(j).start() <= s.start() + JITTER_NANOS; j++) {
                parent = closer(parent, sorted.get(j), s);
            }
            if (parent != null) out.put(s, parent);
        }
        return out;
    }

    private static Span closer(Span best, Span candidate, Span child) {
        if (candidate.duration() <= child.duration() || !contains(candidate, child)) return best;
        return best == null || candidate.duration() < best.duration() ? candidate : best;
    }

    /** "remote_fetch_index 300.1 ms (3 calls), remote_fetch 100.5 ms": each op's total time. */
    static String text(List<OpTime> ops) {
        return ops.stream().map(o -> o.op() + " " + Durations.text(o.totalNanos())
                + (o.count() > 1 ? String.format(Locale.ROOT, " (%d calls)", o.count()) : "")).collect(Collectors.joining(", "));
    }

    /** By start, the longer first on a tie. */
    static List<Span> byStart(List<Span> spans) {
        List<Span> sorted = new ArrayList<>(spans);
        sorted.sort(Comparator.comparingLong(Span::start).thenComparing(Comparator.comparingLong(Span::end).reversed()));
        return sorted;
    }

    /** {@code inner} ran within {@code outer}, give or take the jitter of their events. */
    static boolean contains(Span outer, Span inner) {
        return outer.start() - JITTER_NANOS <= inner.start() && inner.end() <= outer.end() + JITTER_NANOS;
    }
}
