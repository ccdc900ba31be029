package io.stallscope.analyzer.model;

import java.util.Arrays;

/**
 * One chunk's samples in compact columns, grouped by thread, each thread's in time order. Built on the thread
 * that read the chunk (so chunks are grouped and sorted in parallel), then given the recording's thread and
 * stack ids by the merge, and kept: the lanes of {@link Samples} are views over blocks, nothing is copied again.
 * A sample takes 11 bytes: its time as microseconds after the block's first sample (full nanoseconds only in a
 * block spanning more than half an hour), stack id, state and weight.
 */
public final class SampleBlock {
    private final long base;
    private final int[] micros;
    private final long[] wide;
    final int[] stack;
    final byte[] state;
    final char[] weight;
    /** Samples of the block's i-th thread are at [threadStart[i], threadStart[i + 1]). */
    final int[] threadStart;
    /** The i-th thread's id: the chunk's own while reading, the recording's once merged. */
    final int[] threadIds;
    private final long first;
    private final long last;

    private SampleBlock(long base, int[] micros, long[] wide, int[] stack, byte[] state, char[] weight, int[] threadStart,
                        int[] threadIds, long first, long last) {
        this.base = base;
        this.micros = micros;
        this.wide = wide;
        this.stack = stack;
        this.state = state;
        this.weight = weight;
        this.threadStart = threadStart;
        this.threadIds = threadIds;
        this.first = first;
        this.last = last;
    }

    /**
     * A block of {@code n} samples from {@code first} to {@code last}, its columns allocated (microseconds or, past
     * half an hour, full nanoseconds) for {@link #set} to fill.
     */
    private static SampleBlock allocated(int n, long first, long last, int[] threadStart, int[] threadIds) {
        boolean wide = n > 0 && (last - first) / 1000L > Integer.MAX_VALUE;
        return new SampleBlock(n == 0 ? 0 : first, wide ? null : new int[n], wide ? new long[n] : null, new int[n],
                new byte[n], new char[n], threadStart, threadIds, n == 0 ? Long.MAX_VALUE : first, n == 0 ? Long.MIN_VALUE : last);
    }

    /** A time as this block holds it: microseconds after its base, or full nanoseconds when wide. */
    private long encode(long t) {
        return wide != null ? t : (t - base) / 1000L;
    }

    /** Sample {@code p}, its time as {@link #encode} gives it. */
    private void set(int p, long encodedTime, int stackId, byte st, char w) {
        if (wide != null) wide[p] = encodedTime;
        else micros[p] = (int) encodedTime;
        stack[p] = stackId;
        state[p] = st;
        weight[p] = w;
    }

    public int size() {
        return stack.length;
    }

    /** Epoch nanoseconds, to the microsecond (exact for the block's first sample). */
    public long time(int i) {
        return wide != null ? wide[i] : base + micros[i] * 1000L;
    }

    public int stack(int i) {
        return stack[i];
    }

    public byte state(int i) {
        return state[i];
    }

    public int weight(int i) {
        return weight[i];
    }

    public int threads() {
        return threadIds.length;
    }

    public int threadId(int i) {
        return threadIds[i];
    }

    public int threadFrom(int i) {
        return threadStart[i];
    }

    public int threadTo(int i) {
        return threadStart[i + 1];
    }

    /** The earliest and latest sample time (Long.MAX_VALUE and MIN_VALUE when empty). */
    public long firstTime() {
        return first;
    }

    public long lastTime() {
        return last;
    }

    /**
     * Gives the block the recording's ids: {@code threads[local]} and {@code stacks[local]}. Done once, by the
     * merge, before the block is shared.
     */
    public void remap(int[] threads, int[] stacks) {
        for (int i = 0; i < threadIds.length; i++) threadIds[i] = threads[threadIds[i]];
        int[] s = stack;
        for (int i = 0; i < s.length; i++) s[i] = stacks[s[i]];
    }

    /**
     * Collects samples in arrival order, then groups them by thread and sorts each thread's by time (stable: a
     * profiler flushes per-thread buffers a little out of order). One builder per reading thread: its columns
     * are reused from chunk to chunk, only the finished block is allocated.
     */
    public static final class Builder {
        private long[] time;
        private int[] thread;
        private int[] stack;
        private byte[] state;
        private int[] weight;
        private int size;
        private int maxThread = -1;
        private long first = Long.MAX_VALUE;
        private long last = Long.MIN_VALUE;

        public Builder() {
            this(1024);
        }

        /** Room for {@code capacity} samples before the columns grow. */
        public Builder(int capacity) {
            int c = Math.max(16, capacity);
            time = new long[c];
            thread = new int[c];
            stack = new int[c];
            state = new byte[c];
            weight = new int[c];
        }

        public void add(long timeNanos, int threadId, int stackId, byte stateOrdinal, int w) {
            int n = size;
            if (n == time.length) grow();
            time[n] = timeNanos;
            thread[n] = threadId;
            stack[n] = stackId;
            state[n] = stateOrdinal;
            weight[n] = w;
            if (threadId > maxThread) maxThread = threadId;
            if (timeNanos < first) first = timeNanos;
            if (timeNanos > last) last = timeNanos;
            size = n + 1;
        }

        public int size() {
            return size;
        }

        /** Forgets what was added (a chunk that failed to read). */
        public void clear() {
            size = 0;
            maxThread = -1;
            first = Long.MAX_VALUE;
            last = Long.MIN_VALUE;
        }

        private void grow() {
            int c = time.length * 2;
            time = Arrays.copyOf(time, c);
            thread = Arrays.copyOf(thread, c);
            stack = Arrays.copyOf(stack, c);
            state = Arrays.copyOf(state, c);
            weight = Arrays.copyOf(weight, c);
        }

        /** The block of everything added since the last build; the builder is empty after. */
        public SampleBlock build() {
            int n = size;
            // Runs by thread: a counting sort, stable, so each thread's samples keep their arrival order...
            int[] count = new int[maxThread + 2];
            for (int i = 0; i < n; i++) count[thread[i] + 1]++;
            int threads = 0;
            for (int t = 1; t < count.length; t++) {
                if (count[t] > 0) threads++;
            }
            int[] threadIds = new int[threads];
            int[] threadStart = new int[threads + 1];
            int[] slot = new int[maxThread + 1];
            int k = 0;
            int at = 0;
            for (int t = 0; t <= maxThread; t++) {
                slot[t] = at;
                if (count[t + 1] > 0) {
                    threadIds[k] = t;
                    threadStart[k++] = at;
                    at += count[t + 1];
                }
            }
            threadStart[threads] = at;
            SampleBlock b = allocated(n, first, last, threadStart, threadIds);
            // ...placed straight into the block's columns (reading in arrival order, writing by run)...
            for (int i = 0; i < n; i++) {
                b.set(slot[thread[i]]++, b.encode(time[i]), stack[i], state[i], (char) Math.min(weight[i], Character.MAX_VALUE));
            }
            // ...then each run put in time order where it is not (a profiler flushes per-thread buffers a little out of order).
            for (int r = 0; r < threads; r++) b.sortRun(threadStart[r], threadStart[r + 1]);
            clear();
            return b;
        }
    }

    /**
     * One thread's samples from {@code runs} runs, each in time order (run r: {@code blocks[r]} from {@code from[r]},
     * {@code start[r + 1] - start[r]} samples), merged into a block of their own in order of the block's encoded
     * times, the earlier run's first on equal ones: what {@link Builder} gives the runs added one after the other, in
     * one pass and without the copies its sort makes. Few runs: each sample is picked among the runs' heads.
     */
    static SampleBlock merge(SampleBlock[] blocks, int[] from, int[] start, int runs) {
        int n = start[runs];
        int[] pos = new int[runs];
        int[] end = new int[runs];
        long[] head = new long[runs];
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (int r = 0; r < runs; r++) {
            pos[r] = from[r];
            end[r] = from[r] + start[r + 1] - start[r];
            if (pos[r] < end[r]) {
                first = Math.min(first, blocks[r].time(pos[r]));
                last = Math.max(last, blocks[r].time(end[r] - 1));
            }
        }
        SampleBlock out = allocated(n, first, last, new int[] {0, n}, new int[] {0});
        // Encoded as the builder encodes them, so that the order by encoded time is the one it gives.
        for (int r = 0; r < runs; r++) {
            if (pos[r] < end[r]) head[r] = out.encode(blocks[r].time(pos[r]));
        }
        for (int k = 0; k < n; k++) {
            int m = -1;
            long t = 0;
            for (int r = 0; r < runs; r++) {
                if (pos[r] < end[r] && (m < 0 || head[r] < t)) {
                    m = r;
                    t = head[r];
                }
            }
            SampleBlock b = blocks[m];
            int p = pos[m]++;
            out.set(k, t, b.stack[p], b.state[p], b.weight[p]);
            if (p + 1 < end[m]) head[m] = out.encode(b.time(p + 1));
        }
        return out;
    }

    /** Whether samples [from, to) are in time order. */
    private boolean sorted(int from, int to) {
        for (int i = from + 1; i < to; i++) {
            if (time(i) < time(i - 1)) return false;
        }
        return true;
    }

    /** Stable sort of samples [from, to) by time, in place. */
    private void sortRun(int from, int to) {
        if (sorted(from, to)) return;
        int n = to - from;
        int[] order = new int[n];
        long[] key = new long[n];
        for (int i = 0; i < n; i++) {
            order[i] = from + i;
            key[i] = time(from + i);
        }
        io.stallscope.analyzer.util.IndexSort.sortByKey(order, key, n);
        int[] s = new int[n];
        byte[] st = new byte[n];
        char[] w = new char[n];
        for (int i = 0; i < n; i++) {
            int o = order[i];
            s[i] = stack[o];
            st[i] = state[o];
            w[i] = weight[o];
        }
        for (int i = 0; i < n; i++) set(from + i, encode(key[i]), s[i], st[i], w[i]);
    }
}
