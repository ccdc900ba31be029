package io.stallscope.analyzer.model;

import java.util.Arrays;

/**
 * All samples, stored per thread in primitive columns: a big recording holds tens of millions, which as
 * objects would not fit a 1 GB heap. Per-thread storage is what the analysis walks (a thread's timeline, a
 * holder's stacks during a wait). A sample takes 11 bytes: its time as microseconds from its block's first
 * sample, stack id, state and weight; blocks are fixed-size, so growing never copies a big array.
 */
public final class Samples {
    private Lane[] lanes = new Lane[64];
    private int total;
    /**
     * A chunk read on its own (in parallel with others) keeps its samples in arrival order, at full precision,
     * with the chunk's own thread and stack ids: {@link #replayInto} then adds them to the recording's lanes
     * exactly as reading the chunk there would have.
     */
    private final boolean flat;
    /** Arrival-order samples in blocks of {@link #FLAT_BLOCK}: growing allocates a block and never copies. */
    private static final int FLAT_SHIFT = 16;
    private static final int FLAT_BLOCK = 1 << FLAT_SHIFT;
    private long[][] fTime;
    private int[][] fThread;
    private int[][] fStack;
    private byte[][] fState;
    private int[][] fWeight;
    private long[] cTime;
    private int[] cThread;
    private int[] cStack;
    private byte[] cState;
    private int[] cWeight;

    public Samples() {
        this(false);
    }

    private Samples(boolean flat) {
        this.flat = flat;
        if (flat) {
            fTime = new long[4][];
            fThread = new int[4][];
            fStack = new int[4][];
            fState = new byte[4][];
            fWeight = new int[4][];
        }
    }

    /** A store that only records samples in arrival order, for {@link #replayInto}. */
    public static Samples inArrivalOrder() {
        return new Samples(true);
    }

    /** Adds this (arrival-order) store's samples to {@code target}, mapping thread and stack ids. */
    public void replayInto(Samples target, int[] threadMap, int[] stackMap) {
        for (int b = 0; b * FLAT_BLOCK < total; b++) {
            long[] time = fTime[b];
            int[] thread = fThread[b];
            int[] stack = fStack[b];
            byte[] state = fState[b];
            int[] weight = fWeight[b];
            int n = Math.min(FLAT_BLOCK, total - b * FLAT_BLOCK);
            for (int i = 0; i < n; i++) target.addOrdinal(time[i], threadMap[thread[i]], stackMap[stack[i]], state[i], weight[i]);
        }
    }

    public void add(long timeNanos, int threadId, int stackId, State st, int weight) {
        if (flat) {
            int i = total & (FLAT_BLOCK - 1);
            if (i == 0) newFlatBlock();
            cTime[i] = timeNanos;
            cThread[i] = threadId;
            cStack[i] = stackId;
            cState[i] = (byte) st.ordinal();
            cWeight[i] = weight;
            total++;
            return;
        }
        addOrdinal(timeNanos, threadId, stackId, (byte) st.ordinal(), weight);
    }

    private void newFlatBlock() {
        int b = total >>> FLAT_SHIFT;
        if (b == fTime.length) {
            fTime = Arrays.copyOf(fTime, b * 2);
            fThread = Arrays.copyOf(fThread, b * 2);
            fStack = Arrays.copyOf(fStack, b * 2);
            fState = Arrays.copyOf(fState, b * 2);
            fWeight = Arrays.copyOf(fWeight, b * 2);
        }
        fTime[b] = cTime = new long[FLAT_BLOCK];
        fThread[b] = cThread = new int[FLAT_BLOCK];
        fStack[b] = cStack = new int[FLAT_BLOCK];
        fState[b] = cState = new byte[FLAT_BLOCK];
        fWeight[b] = cWeight = new int[FLAT_BLOCK];
    }

    private void addOrdinal(long timeNanos, int threadId, int stackId, byte st, int weight) {
        Lane l = threadId < lanes.length ? lanes[threadId] : null;
        if (l == null) l = newLane(threadId);
        l.add(timeNanos, stackId, st, weight);
        total++;
    }

    private Lane newLane(int threadId) {
        if (threadId >= lanes.length) lanes = Arrays.copyOf(lanes, Math.max(threadId + 1, lanes.length * 2));
        Lane l = lanes[threadId];
        if (l == null) l = lanes[threadId] = new Lane();
        return l;
    }

    public int size() {
        return total;
    }

    /** The samples of one thread, in time order once {@link #sort()} has run; never null. */
    public Lane lane(int threadId) {
        Lane l = threadId < lanes.length ? lanes[threadId] : null;
        return l == null ? Lane.EMPTY : l;
    }

    /** Sorts every lane by time; lanes are independent, so on a few threads. */
    public void sort() {
        try {
            io.stallscope.analyzer.util.Parallel.run(lanes.length, () -> null, (w, i) -> {
                if (lanes[i] != null) lanes[i].sort();
            });
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** One thread's samples. */
    public static final class Lane {
        static final Lane EMPTY = new Lane();
        private static final int SHIFT = 12;
        private static final int BLOCK = 1 << SHIFT;
        private static final int MASK = BLOCK - 1;

        private long[] base = new long[1];
        private int[][] micros = new int[1][];
        private int[][] stack = new int[1][];
        private byte[][] state = new byte[1][];
        private char[][] weight = new char[1][];
        private int size;
        private long last = Long.MIN_VALUE;
        private boolean sorted = true;
        /**
         * Full-width times, only for a lane whose samples lie more than 35 minutes from their block's first
         * one (overlapping chunks of a long jfrsync recording): rare, so the compact form stays the default.
         */
        private long[][] wide;

        private void widen() {
            wide = new long[micros.length][];
            for (int b = 0; b < micros.length; b++) {
                if (micros[b] == null) continue;
                wide[b] = new long[micros[b].length];
                int n = Math.min(micros[b].length, size - (b << SHIFT));
                for (int i = 0; i < n; i++) wide[b][i] = base[b] + micros[b][i] * 1000L;
            }
        }

        void add(long t, int s, State st, int w) {
            add(t, s, (byte) st.ordinal(), w);
        }

        /** The common case inline (a block with room, compact times); anything else goes to {@link #addSlow}. */
        void add(long t, int s, byte st, int w) {
            int b = size >>> SHIFT;
            int i = size & MASK;
            int[] m;
            if (wide != null || b >= micros.length || (m = micros[b]) == null || i == m.length) {
                addSlow(t, s, st, w);
                return;
            }
            long off = Math.floorDiv(t - base[b], 1000L);
            if (off > Integer.MAX_VALUE || off < Integer.MIN_VALUE) {
                addSlow(t, s, st, w);
                return;
            }
            if (t < last) sorted = false;
            last = t;
            m[i] = (int) off;
            stack[b][i] = s;
            state[b][i] = st;
            weight[b][i] = (char) Math.min(w, Character.MAX_VALUE);
            size++;
        }

        private void addSlow(long t, int s, byte st, int w) {
            int b = size >>> SHIFT;
            int i = size & MASK;
            if (b == base.length) {
                base = Arrays.copyOf(base, b * 2);
                micros = Arrays.copyOf(micros, b * 2);
                stack = Arrays.copyOf(stack, b * 2);
                state = Arrays.copyOf(state, b * 2);
                weight = Arrays.copyOf(weight, b * 2);
            }
            if (micros[b] == null) {
                // The first block grows from small, so the many threads with few samples stay cheap.
                allocate(b, b == 0 ? 16 : BLOCK);
                base[b] = t;
            } else if (i == micros[b].length) {
                allocate(b, Math.min(BLOCK, micros[b].length * 2));
            }
            long off = Math.floorDiv(t - base[b], 1000L);
            if (wide == null && (off > Integer.MAX_VALUE || off < Integer.MIN_VALUE)) widen();
            if (wide != null) {
                if (wide.length < micros.length) wide = Arrays.copyOf(wide, micros.length);
                if (wide[b] == null || wide[b].length < micros[b].length) {
                    wide[b] = wide[b] == null ? new long[micros[b].length] : Arrays.copyOf(wide[b], micros[b].length);
                }
                wide[b][i] = t;
                off = 0;
            }
            if (t < last) sorted = false;
            last = t;
            micros[b][i] = (int) off;
            stack[b][i] = s;
            state[b][i] = st;
            weight[b][i] = (char) Math.min(w, Character.MAX_VALUE);
            size++;
        }

        private void allocate(int b, int capacity) {
            micros[b] = micros[b] == null ? new int[capacity] : Arrays.copyOf(micros[b], capacity);
            stack[b] = stack[b] == null ? new int[capacity] : Arrays.copyOf(stack[b], capacity);
            state[b] = state[b] == null ? new byte[capacity] : Arrays.copyOf(state[b], capacity);
            weight[b] = weight[b] == null ? new char[capacity] : Arrays.copyOf(weight[b], capacity);
        }

        public int size() {
            return size;
        }

        /** Epoch nanoseconds, exact for a block's first sample and to the microsecond for the others. */
        public long time(int i) {
            int b = i >>> SHIFT;
            if (wide != null) return wide[b][i & MASK];
            return base[b] + micros[b][i & MASK] * 1000L;
        }

        public int stack(int i) {
            return stack[i >>> SHIFT][i & MASK];
        }

        public State state(int i) {
            return State.of(state[i >>> SHIFT][i & MASK]);
        }

        /** How many sampling ticks this sample stands for (async-profiler batches idle ticks into one event). */
        public int weight(int i) {
            return weight[i >>> SHIFT][i & MASK];
        }

        /** Index of the first sample at or after {@code t}. */
        public int firstAtOrAfter(long t) {
            int lo = 0;
            int hi = size;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (time(mid) < t) lo = mid + 1;
                else hi = mid;
            }
            return lo;
        }

        void sort() {
            if (sorted) return;
            // Out of order only where chunks overlap (jfrsync): sort by time and rebuild the blocks.
            long[] t = new long[size];
            for (int i = 0; i < size; i++) t[i] = time(i);
            int[] order = new int[size];
            for (int i = 0; i < size; i++) order[i] = i;
            sortByKey(order, t);
            Lane fresh = new Lane();
            for (int i = 0; i < size; i++) {
                int o = order[i];
                fresh.add(t[o], stack[o >>> SHIFT][o & MASK], state[o >>> SHIFT][o & MASK], weight[o >>> SHIFT][o & MASK]);
            }
            base = fresh.base;
            micros = fresh.micros;
            stack = fresh.stack;
            state = fresh.state;
            weight = fresh.weight;
            last = fresh.last;
            wide = fresh.wide;
            sorted = true;
        }

        /**
         * Stable sort of {@code order} by {@code key[order[i]]}. Lanes are nearly sorted (a profiler flushes
         * per-thread buffers a little out of order), so insertion sort runs first and gives up for a merge
         * sort once it has moved more than a few elements per element.
         */
        public static void sortByKey(int[] order, long[] key) {
            int n = order.length;
            int[] backup = order.clone();
            long budget = 16L * n;
            boolean done = true;
            for (int i = 1; i < n && done; i++) {
                int v = order[i];
                long k = key[v];
                int j = i - 1;
                while (j >= 0 && key[order[j]] > k) {
                    order[j + 1] = order[j];
                    j--;
                    if (--budget < 0) {
                        done = false;
                        break;
                    }
                }
                order[j + 1] = v;
            }
            if (done) return;
            System.arraycopy(backup, 0, order, 0, n);
            mergeSort(order, key);
        }

        private static void mergeSort(int[] order, long[] key) {
            int n = order.length;
            int[] tmp = new int[n];
            for (int width = 1; width < n; width *= 2) {
                for (int lo = 0; lo < n - width; lo += 2 * width) {
                    int mid = lo + width;
                    int hi = Math.min(lo + 2 * width, n);
                    int a = lo;
                    int b = mid;
                    int k = lo;
                    while (a < mid && b < hi) tmp[k++] = key[order[b]] < key[order[a]] ? order[b++] : order[a++];
                    while (a < mid) tmp[k++] = order[a++];
                    while (b < hi) tmp[k++] = order[b++];
                    System.arraycopy(tmp, lo, order, lo, hi - lo);
                }
            }
        }
    }
}
