package io.stallscope.analyzer.analysis.waits;

import io.stallscope.analyzer.model.LockEvents;
import io.stallscope.analyzer.model.Recording;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The recorded waits as two ints each (the lock event, and the lock's names shared by all its waits), read as
 * {@link Wait}s made when asked for. Millions of lock events as Wait objects, each with its own key and label,
 * were most of the heap on issue 19's 485 MB recording.
 */
final class RecordedWaits extends AbstractList<Wait> {
    /** What a wait says about its lock, beyond the event: shared by every wait on that lock at that site. */
    record Names(String lockKey, String lockLabel, String lockType, String siteMethod, String siteLabel) {
        // Written out: a record's generated equals and hashCode are method-handle chains that C2 inlines into every
        // map lookup that uses them, which made compiling those lookups cost more than running them.
        @Override
        public boolean equals(Object o) {
            return o instanceof Names n && java.util.Objects.equals(n.lockKey, lockKey) && java.util.Objects.equals(n.lockLabel, lockLabel)
                    && java.util.Objects.equals(n.lockType, lockType) && java.util.Objects.equals(n.siteMethod, siteMethod)
                    && java.util.Objects.equals(n.siteLabel, siteLabel);
        }

        @Override
        public int hashCode() {
            return java.util.Arrays.hashCode(new Object[] {lockKey, lockLabel, lockType, siteMethod, siteLabel});
        }

        static Names of(Wait w) {
            return new Names(w.lockKey, w.lockLabel, w.lockType, w.siteMethod, w.siteLabel);
        }
    }

    private final Recording rec;
    private int[] event;
    private int[] names;
    private int size;
    private final List<Names> table = new ArrayList<>();
    private final Map<Names, Integer> ids = new HashMap<>();

    /**
     * With room for {@code expected} waits (the window's lock events): grown from a few entries, a window of millions
     * copied its columns twenty times over.
     */
    RecordedWaits(Recording rec, int expected) {
        this.rec = rec;
        this.event = new int[Math.max(16, expected)];
        this.names = new int[Math.max(16, expected)];
    }

    /** Adds the wait of lock event {@code index}. */
    void add(int index, Names n) {
        add(index, id(n));
    }

    /** Adds the wait of lock event {@code index} with the names {@link #id} gave. */
    void add(int index, int namesId) {
        if (size == event.length) {
            event = Arrays.copyOf(event, size * 2);
            names = Arrays.copyOf(names, size * 2);
        }
        event[size] = index;
        names[size] = namesId;
        size++;
    }

    /** How many distinct names the waits have: {@link #namesId} is below it. */
    int namesCount() {
        return table.size();
    }

    int id(Names n) {
        Integer id = ids.get(n);
        if (id == null) {
            id = table.size();
            table.add(n);
            ids.put(n, id);
        }
        return id;
    }

    Names names(int i) {
        return table.get(names[i]);
    }

    int namesId(int i) {
        return names[i];
    }

    void rename(int i, int namesId) {
        names[i] = namesId;
    }

    int thread(int i) {
        return rec.locks.thread(event[i]);
    }

    int owner(int i) {
        return rec.locks.previousOwner(event[i]);
    }

    long start(int i) {
        return rec.locks.start(event[i]);
    }

    @Override
    public Wait get(int i) {
        if (i < 0 || i >= size) throw new IndexOutOfBoundsException(i);
        int e = event[i];
        LockEvents l = rec.locks;
        Names n = table.get(names[i]);
        int thread = l.thread(e);
        return new Wait(rec.threads.get(thread).file(), thread, l.start(e), l.end(e), n.lockKey(), n.lockLabel(),
                n.lockType(), n.siteMethod(), n.siteLabel(), l.stack(e), true, l.previousOwner(e));
    }

    @Override
    public int size() {
        return size;
    }

    /**
     * The positions of the waits in about start order: by buckets of a power of two nanoseconds (about as many
     * buckets as waits), in list order within a bucket. Two passes, where a full sort of millions cost more than
     * the walk it made cheaper.
     */
    int[] roughTimeOrder() {
        int[] order = new int[size];
        if (size == 0) return order;
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (int i = 0; i < size; i++) {
            long t = start(i);
            min = Math.min(min, t);
            max = Math.max(max, t);
        }
        long span = max - min;
        int shift = Math.max(0, 64 - Long.numberOfLeadingZeros(span / size));
        int buckets = (int) (span >>> shift) + 1;
        int[] at = new int[buckets + 1];
        for (int i = 0; i < size; i++) at[(int) ((start(i) - min) >>> shift) + 1]++;
        for (int b = 1; b <= buckets; b++) at[b] += at[b - 1];
        for (int i = 0; i < size; i++) order[at[(int) ((start(i) - min) >>> shift)]++] = i;
        return order;
    }

    /**
     * The waits at {@code positions} (the first {@code n}) of this list in order of start, ties in the given order.
     */
    ByStart byStart(int[] positions, int n) {
        return new ByStart(positions, n);
    }

    /**
     * Some of the recorded waits in order of start, sorted when first read: the analysis threads read each thread's
     * list, and only when that thread has samples. Their times are read without making a {@link Wait}.
     */
    final class ByStart extends AbstractList<Wait> {
        private final int[] positions;
        private final int n;
        /** Sorted on first use; two threads sorting at once would publish the same order. */
        private volatile int[] sorted;

        private ByStart(int[] positions, int n) {
            this.positions = positions;
            this.n = n;
        }

        private int[] sorted() {
            int[] s = sorted;
            if (s == null) {
                s = Arrays.copyOf(positions, n);
                io.stallscope.analyzer.util.IndexSort.stable(s, RecordedWaits.this::start);
                sorted = s;
            }
            return s;
        }

        @Override
        public Wait get(int k) {
            return RecordedWaits.this.get(sorted()[k]);
        }

        long start(int k) {
            return rec.locks.start(event[sorted()[k]]);
        }

        long end(int k) {
            return rec.locks.end(event[sorted()[k]]);
        }

        @Override
        public int size() {
            return n;
        }
    }
}
