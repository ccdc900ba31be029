package io.stallscope.analyzer.model;

import java.util.Arrays;

/**
 * All samples, stored per thread in primitive columns: a big recording holds tens of millions, which as
 * objects would not fit a 1 GB heap, and per-thread storage is what the analysis walks (a thread's
 * timeline, a holder's stacks during a wait) without a separate index.
 */
public final class Samples {
    private Lane[] lanes = new Lane[64];
    private int total;

    public void add(long timeNanos, int threadId, int stackId, State st, int weight) {
        if (threadId >= lanes.length) lanes = Arrays.copyOf(lanes, Math.max(threadId + 1, lanes.length * 2));
        Lane l = lanes[threadId];
        if (l == null) l = lanes[threadId] = new Lane();
        l.add(timeNanos, stackId, st, weight);
        total++;
    }

    public int size() {
        return total;
    }

    /** The samples of one thread, in time order once {@link #sort()} has run; never null. */
    public Lane lane(int threadId) {
        Lane l = threadId < lanes.length ? lanes[threadId] : null;
        return l == null ? Lane.EMPTY : l;
    }

    public void sort() {
        for (Lane l : lanes) {
            if (l != null) l.sort();
        }
    }

    /** One thread's samples. */
    public static final class Lane {
        static final Lane EMPTY = new Lane();
        private long[] time = new long[16];
        private int[] stack = new int[16];
        private byte[] state = new byte[16];
        private char[] weight = new char[16];
        private int size;
        private boolean sorted = true;

        void add(long t, int s, State st, int w) {
            if (size == time.length) {
                int n = size * 2;
                time = Arrays.copyOf(time, n);
                stack = Arrays.copyOf(stack, n);
                state = Arrays.copyOf(state, n);
                weight = Arrays.copyOf(weight, n);
            }
            if (size > 0 && t < time[size - 1]) sorted = false;
            time[size] = t;
            stack[size] = s;
            state[size] = (byte) st.ordinal();
            weight[size] = (char) Math.min(w, Character.MAX_VALUE);
            size++;
        }

        public int size() {
            return size;
        }

        public long time(int i) {
            return time[i];
        }

        public int stack(int i) {
            return stack[i];
        }

        public State state(int i) {
            return State.of(state[i]);
        }

        /** How many sampling ticks this sample stands for (async-profiler batches idle ticks into one event). */
        public int weight(int i) {
            return weight[i];
        }

        /** Index of the first sample at or after {@code t}. */
        public int firstAtOrAfter(long t) {
            int lo = 0;
            int hi = size;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (time[mid] < t) lo = mid + 1;
                else hi = mid;
            }
            return lo;
        }

        void sort() {
            if (sorted) return;
            // Out of order only where chunks overlap (jfrsync): sort an index by time, then permute the columns.
            Integer[] order = new Integer[size];
            for (int i = 0; i < size; i++) order[i] = i;
            Arrays.sort(order, (a, b) -> Long.compare(time[a], time[b]));
            long[] t2 = new long[size];
            int[] s2 = new int[size];
            byte[] st2 = new byte[size];
            char[] w2 = new char[size];
            for (int i = 0; i < size; i++) {
                int o = order[i];
                t2[i] = time[o];
                s2[i] = stack[o];
                st2[i] = state[o];
                w2[i] = weight[o];
            }
            time = t2;
            stack = s2;
            state = st2;
            weight = w2;
            sorted = true;
        }
    }
}
