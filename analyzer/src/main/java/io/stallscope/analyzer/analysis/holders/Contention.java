package io.stallscope.analyzer.analysis.holders;

import io.stallscope.analyzer.analysis.waits.Holder;
import io.stallscope.analyzer.analysis.waits.Wait;
import io.stallscope.analyzer.util.Counts;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One lock: everyone who waited for it, and who held it while they did. Waits are added one by one and only
 * their sums are kept, so a recording with millions of waits costs memory per thread, not per wait.
 */
public final class Contention {
    public final String key;
    public final String label;
    public final String lockType;
    public final String site;
    public long totalWaitNanos;
    public int waitCount;
    public long longestWaitNanos;
    /** When the longest wait began (epoch ns): the moment a report points at. */
    public long longestWaitStart;
    /** Waits from lock events, and waits inferred from samples with the samples that show them. */
    public int recordedWaits;
    public int inferredWaits;
    public long inferredSamples;
    /** The Kafka logs whose ops the holders were in during the waits (LogLockPartitions); empty when none. */
    public List<LogLockPartitions.Share> logs = List.of();
    // Indexed by thread id: a contention storm adds millions of waits, a map would box each one.
    private Share[] waiters = new Share[16];
    private HolderShare[] holders = new HolderShare[16];

    public Contention(Wait first) {
        this.key = first.lockKey;
        this.label = first.lockLabel;
        this.lockType = first.lockType;
        this.site = first.siteLabel;
    }

    public void add(Wait w) {
        long d = w.duration();
        totalWaitNanos += d;
        waitCount++;
        if (w.recorded) {
            recordedWaits++;
        } else {
            inferredWaits++;
            inferredSamples += w.samples;
        }
        if (d > longestWaitNanos || waitCount == 1) {
            longestWaitNanos = d;
            longestWaitStart = w.start;
        }
        if (w.thread >= waiters.length) waiters = java.util.Arrays.copyOf(waiters, Math.max(w.thread + 1, waiters.length * 2));
        if (waiters[w.thread] == null) waiters[w.thread] = new Share(w.thread);
        waiters[w.thread].add(d);
        if (w.holder != null) {
            int h = w.holder.thread();
            if (h >= holders.length) holders = java.util.Arrays.copyOf(holders, Math.max(h + 1, holders.length * 2));
            if (holders[h] == null) holders[h] = new HolderShare(h);
            holders[h].add(w, d);
        }
    }

    /**
     * Adds the waits another part of the analysis added to its own Contention of the same lock. Merging parts
     * in the order their waits would have come gives what adding those waits here one by one gives.
     */
    public void merge(Contention o) {
        totalWaitNanos += o.totalWaitNanos;
        waitCount += o.waitCount;
        recordedWaits += o.recordedWaits;
        inferredWaits += o.inferredWaits;
        inferredSamples += o.inferredSamples;
        if (o.longestWaitNanos > longestWaitNanos) {
            longestWaitNanos = o.longestWaitNanos;
            longestWaitStart = o.longestWaitStart;
        }
        if (o.waiters.length > waiters.length) waiters = java.util.Arrays.copyOf(waiters, o.waiters.length);
        for (Share s : o.waiters) {
            if (s == null) continue;
            if (waiters[s.thread] == null) waiters[s.thread] = new Share(s.thread);
            waiters[s.thread].nanos += s.nanos;
            waiters[s.thread].count += s.count;
        }
        if (o.holders.length > holders.length) holders = java.util.Arrays.copyOf(holders, o.holders.length);
        for (HolderShare h : o.holders) {
            if (h == null) continue;
            if (holders[h.thread] == null) holders[h.thread] = new HolderShare(h.thread);
            holders[h.thread].merge(h);
        }
    }

    /**
     * Where the waits came from: "recorded" when every one is a lock event, "inferred" when every one was read
     * from samples, "recorded+inferred" when both.
     */
    public String source() {
        return inferredWaits == 0 ? Holder.RECORDED : recordedWaits == 0 ? Holder.INFERRED : Holder.RECORDED + "+" + Holder.INFERRED;
    }

    /** Only samples show this lock waited for. */
    public boolean inferredOnly() {
        return recordedWaits == 0;
    }

    /**
     * What ranks locks: the time others waited, times the threads that waited. Ten threads each losing 50 ms to a
     * lock stall a broker more than one thread losing 500 ms.
     */
    public double impact() {
        return (double) totalWaitNanos * Math.max(1, waiters().size());
    }

    /** The part of all waiting on this lock attributed to {@code h}, in 0..1. */
    public double share(Share h) {
        return totalWaitNanos == 0 ? 0 : (double) h.nanos / totalWaitNanos;
    }

    /** Total wait per waiting thread, longest first. */
    public List<Share> waiters() {
        return sorted(present(waiters));
    }

    /** For each holder, the wait it caused (the waits attributed to it), most first. */
    public List<HolderShare> holders() {
        return sorted(present(holders));
    }

    /**
     * A holder explaining less of a lock's waiting than this is not named as its holder anywhere in a report: it is
     * one of many threads taking turns, and naming it would say more than the samples do.
     */
    public static final double MAIN_HOLDER_SHARE = 0.10;

    /** The holders that explain at least {@link #MAIN_HOLDER_SHARE} of the waiting, most first. */
    public List<HolderShare> mainHolders() {
        return holders().stream().filter(h -> share(h) >= MAIN_HOLDER_SHARE).toList();
    }

    /** "no one thread explains 10% of the waiting (200 holders seen)": what a report says when no holder is main. */
    public String noMainHolder() {
        int seen = holders().size();
        return String.format(java.util.Locale.ROOT, "no one thread explains %.0f%% of the waiting (%s seen)",
                100 * MAIN_HOLDER_SHARE, Counts.of(seen, "holder"));
    }

    /** The holder that caused most of the waiting, with its most telling attribution; null when unknown. */
    public Holder mainHolder() {
        List<HolderShare> hs = holders();
        if (hs.isEmpty()) return null;
        HolderShare h = hs.get(0);
        Holder best = h.telling;
        return new Holder(best.thread(), best.how(), h.confidence(), best.stack(), best.op());
    }

    private static <T> List<T> present(T[] byThread) {
        List<T> l = new ArrayList<>();
        for (T t : byThread) {
            if (t != null) l.add(t);
        }
        return l;
    }

    private static <T extends Share> List<T> sorted(java.util.Collection<T> c) {
        List<T> l = new ArrayList<>(c);
        l.sort(Comparator.comparingLong((Share s) -> s.nanos).reversed().thenComparingInt(s -> s.thread));
        return l;
    }

    /** A thread's part: total nanoseconds over {@code count} waits. */
    public static class Share {
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

    /**
     * A holder's part: the waits attributed to it, and separately those during which it sat in a storage
     * system call (what the holder-in-file-I/O finding reports), with the waiting threads behind those.
     */
    public static final class HolderShare extends Share {
        /** The attribution behind the longest wait, preferring one that saw a storage call. */
        public Holder telling;
        private long tellingRank = -1;
        private double confidenceSum;
        /** Waits attributed from a recorded owner (previousOwner), and inferred from samples. */
        public int recordedCount;
        public int inferredCount;
        public long storageNanos;
        public int storageCount;
        public long longestStorageWait;
        /** When that wait began (epoch ns). */
        public long longestStorageStart;
        public Holder tellingStorage;
        private double storageConfidenceSum;
        public final Map<Integer, Long> storageWaiters = new HashMap<>();

        HolderShare(int thread) {
            super(thread);
        }

        void add(Wait w, long d) {
            add(d);
            if (w.holder.how().equals(Holder.RECORDED)) recordedCount++;
            else inferredCount++;
            confidenceSum += w.holder.confidence() * (d + 1);
            long rank = d + (w.holder.op().storage() ? Long.MAX_VALUE / 4 : 0);
            if (rank > tellingRank) {
                tellingRank = rank;
                telling = w.holder;
            }
            if (w.holder.op().storage()) {
                storageNanos += d;
                storageCount++;
                storageConfidenceSum += w.holder.confidence();
                storageWaiters.merge(w.thread, d, Long::sum);
                if (tellingStorage == null || d > longestStorageWait) {
                    longestStorageWait = d;
                    longestStorageStart = w.start;
                    tellingStorage = w.holder;
                }
            }
        }

        void merge(HolderShare o) {
            nanos += o.nanos;
            count += o.count;
            recordedCount += o.recordedCount;
            inferredCount += o.inferredCount;
            confidenceSum += o.confidenceSum;
            if (o.tellingRank > tellingRank) {
                tellingRank = o.tellingRank;
                telling = o.telling;
            }
            storageNanos += o.storageNanos;
            storageCount += o.storageCount;
            storageConfidenceSum += o.storageConfidenceSum;
            o.storageWaiters.forEach((t, n) -> storageWaiters.merge(t, n, Long::sum));
            if (o.tellingStorage != null && (tellingStorage == null || o.longestStorageWait > longestStorageWait)) {
                longestStorageWait = o.longestStorageWait;
                longestStorageStart = o.longestStorageStart;
                tellingStorage = o.tellingStorage;
            }
        }

        /** "recorded", "inferred" or "recorded+inferred", as for the lock. */
        public String source() {
            return inferredCount == 0 ? Holder.RECORDED : recordedCount == 0 ? Holder.INFERRED : Holder.RECORDED + "+" + Holder.INFERRED;
        }

        /** Confidence weighted by wait time. */
        public double confidence() {
            return Math.min(1.0, Math.round(confidenceSum / (nanos + count) * 100) / 100.0);
        }

        public double storageConfidence() {
            return storageCount == 0 ? 0 : Math.round(storageConfidenceSum / storageCount * 100) / 100.0;
        }
    }
}
