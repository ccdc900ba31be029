package io.stallscope.analyzer.analysis.waits;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

/**
 * Keeps the {@code limit} longest waits of a stream of millions. Ties are broken by thread, start, end and lock,
 * so "the longest" is one well-defined set: each analysis thread keeps its own longest, and the longest of
 * their union is the overall one, whichever thread saw which wait. Rejecting a wait costs one comparison with
 * the shortest kept (most waits are rejected); accepted ones are pruned in batches, not kept in a heap.
 */
public final class LongestWaits {
    /** Longest first; a total order. */
    public static final Comparator<Wait> ORDER = LongestWaits::compare;

    private final int limit;
    private final List<Wait> kept = new ArrayList<>();
    /** The shortest kept wait once {@code limit} were kept; null before. */
    private Wait floor;

    LongestWaits(int limit) {
        this(limit, null);
    }

    /**
     * With a {@code floor} known from elsewhere (the shortest of {@code limit} waits already kept, e.g. by earlier
     * windows): a wait no longer than it cannot be among the longest, so it is not even kept for pruning.
     */
    public LongestWaits(int limit, Wait floor) {
        this.limit = limit;
        this.floor = floor;
    }

    /** The shortest of {@code waits} under {@link #ORDER} when they are {@code limit} or more: a floor; else null. */
    public static Wait floorOf(List<Wait> waits, int limit) {
        return waits.size() < limit ? null : Collections.max(waits, ORDER);
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

    /** Waits kept so far, before the last pruning. */
    int size() {
        return kept.size();
    }

    public void offer(Wait w) {
        if (floor != null && compare(w, floor) >= 0) return;
        kept.add(w);
        if (kept.size() >= 2 * limit) {
            keepLongest(kept, limit);
            // Every wait kept is shorter than any floor given, so the new floor only rises.
            if (kept.size() == limit) floor = Collections.max(kept, ORDER);
        }
    }

    /** Waits already pruned to the longest, as a part for {@link #longest}. */
    public static LongestWaits of(List<Wait> waits) {
        LongestWaits l = new LongestWaits(Integer.MAX_VALUE);
        l.kept.addAll(waits);
        return l;
    }

    /** The longest {@code limit} of these and {@code others}' waits. */
    public static List<Wait> longest(List<LongestWaits> parts, int limit) {
        List<Wait> all = new ArrayList<>();
        for (LongestWaits p : parts) all.addAll(p.kept);
        keepLongest(all, limit);
        return all;
    }

    /**
     * Leaves in {@code waits} the first {@code limit} under {@link #ORDER}, in no particular order. Durations decide
     * almost all of it: a sort of the durations finds the shortest one kept, and only the waits of exactly that
     * duration are compared in full (a full sort of the objects cost more than the attribution that found them).
     */
    private static void keepLongest(List<Wait> waits, int limit) {
        int n = waits.size();
        if (n <= limit) return;
        long[] d = new long[n];
        for (int i = 0; i < n; i++) d[i] = waits.get(i).duration();
        Arrays.sort(d);
        long threshold = d[n - limit];
        List<Wait> kept = new ArrayList<>(limit);
        List<Wait> ties = new ArrayList<>();
        for (Wait w : waits) {
            long dw = w.duration();
            if (dw > threshold) kept.add(w);
            else if (dw == threshold) ties.add(w);
        }
        ties.sort(ORDER);
        kept.addAll(ties.subList(0, limit - kept.size()));
        waits.clear();
        waits.addAll(kept);
    }
}
