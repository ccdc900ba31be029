package io.stallscope.analyzer.analysis;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Keeps the {@code limit} longest waits of a stream of millions. Ties are broken by thread, start, end and lock,
 * so "the longest" is one well-defined set: each analysis thread keeps its own longest, and the longest of
 * their union is the overall one, whichever thread saw which wait. Rejecting a wait costs one comparison with
 * the shortest kept (most waits are rejected); accepted ones are pruned in batches, not kept in a heap.
 */
final class LongestWaits {
    /** Longest first; a total order. */
    static final Comparator<Wait> ORDER = LongestWaits::compare;

    private final int limit;
    private final List<Wait> kept = new ArrayList<>();
    /** The shortest kept wait once {@code limit} were kept; null before. */
    private Wait floor;

    LongestWaits(int limit) {
        this.limit = limit;
    }

    static int compare(Wait a, Wait b) {
        int c = Long.compare(b.duration(), a.duration());
        if (c != 0) return c;
        c = Integer.compare(a.thread, b.thread);
        if (c != 0) return c;
        c = Long.compare(a.start, b.start);
        if (c != 0) return c;
        c = Long.compare(a.end, b.end);
        return c != 0 ? c : a.lockKey.compareTo(b.lockKey);
    }

    void offer(Wait w) {
        if (floor != null && compare(w, floor) >= 0) return;
        kept.add(w);
        if (kept.size() >= limit + limit / 4 + 1) prune();
    }

    private void prune() {
        kept.sort(ORDER);
        if (kept.size() > limit) kept.subList(limit, kept.size()).clear();
        if (kept.size() == limit) floor = kept.get(limit - 1);
    }

    /** The longest {@code limit} of these and {@code others}' waits. */
    static List<Wait> longest(List<LongestWaits> parts, int limit) {
        List<Wait> all = new ArrayList<>();
        for (LongestWaits p : parts) all.addAll(p.kept);
        if (all.size() > limit) {
            all.sort(ORDER);
            all.subList(limit, all.size()).clear();
        }
        return all;
    }
}
