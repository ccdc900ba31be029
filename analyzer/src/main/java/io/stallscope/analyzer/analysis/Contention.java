package io.stallscope.analyzer.analysis;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One lock: everyone who waited for it, and who held it while they did. */
public final class Contention {
    public final String key;
    public final String label;
    public final String lockType;
    public final String site;
    public final List<Wait> waits = new ArrayList<>();
    public long totalWaitNanos;

    Contention(Wait first) {
        this.key = first.lockKey;
        this.label = first.lockLabel;
        this.lockType = first.lockType;
        this.site = first.siteLabel;
    }

    void add(Wait w) {
        waits.add(w);
        totalWaitNanos += w.duration();
    }

    /** Total wait per waiting thread, longest first. */
    public List<Share> waiters() {
        Map<Integer, Share> m = new LinkedHashMap<>();
        for (Wait w : waits) m.computeIfAbsent(w.thread, Share::new).add(w.duration());
        return sorted(m);
    }

    /** For each holder, the wait it caused (the waits attributed to it), most first. */
    public List<Share> holders() {
        Map<Integer, Share> m = new LinkedHashMap<>();
        for (Wait w : waits) {
            if (w.holder != null) m.computeIfAbsent(w.holder.thread(), Share::new).add(w.duration());
        }
        return sorted(m);
    }

    /** The holder that caused most of the waiting, with its most telling attribution; null when unknown. */
    public Holder mainHolder() {
        List<Share> hs = holders();
        if (hs.isEmpty()) return null;
        int t = hs.get(0).thread;
        Holder best = null;
        long bestWait = -1;
        double confidenceSum = 0;
        long weightSum = 0;
        for (Wait w : waits) {
            if (w.holder == null || w.holder.thread() != t) continue;
            confidenceSum += w.holder.confidence() * Math.max(1, w.duration());
            weightSum += Math.max(1, w.duration());
            // The attribution behind the longest wait speaks for this holder, preferring one that saw a storage call.
            long rank = w.duration() + (w.holder.op().storage() ? Long.MAX_VALUE / 4 : 0);
            if (rank > bestWait) {
                bestWait = rank;
                best = w.holder;
            }
        }
        double confidence = Math.round(confidenceSum / weightSum * 100) / 100.0;
        return new Holder(best.thread(), best.how(), confidence, best.stack(), best.op());
    }

    public long longestWaitNanos() {
        return waits.stream().mapToLong(Wait::duration).max().orElse(0);
    }

    private static List<Share> sorted(Map<Integer, Share> m) {
        List<Share> l = new ArrayList<>(m.values());
        l.sort(Comparator.comparingLong((Share s) -> s.nanos).reversed().thenComparingInt(s -> s.thread));
        return l;
    }

    /** A thread's part: total nanoseconds over {@code count} waits. */
    public static final class Share {
        public final int thread;
        public long nanos;
        public int count;

        Share(int thread) {
            this.thread = thread;
        }

        void add(long n) {
            nanos += n;
            count++;
        }
    }
}
