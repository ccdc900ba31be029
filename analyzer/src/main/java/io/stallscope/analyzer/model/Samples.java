package io.stallscope.analyzer.model;

import java.util.Arrays;

/**
 * All samples, column by column in fixed-size blocks: a big recording holds tens of millions, and
 * objects or doubling arrays would not fit in a 1 GB heap.
 */
public final class Samples {
    private static final int SHIFT = 16;
    private static final int BLOCK = 1 << SHIFT;
    private static final int MASK = BLOCK - 1;

    private long[][] time = new long[16][];
    private int[][] thread = new int[16][];
    private int[][] stack = new int[16][];
    private byte[][] state = new byte[16][];
    private int[][] weight = new int[16][];
    private int size;

    public void add(long timeNanos, int threadId, int stackId, State st, int w) {
        int b = size >>> SHIFT;
        if (b == time.length) {
            time = Arrays.copyOf(time, b * 2);
            thread = Arrays.copyOf(thread, b * 2);
            stack = Arrays.copyOf(stack, b * 2);
            state = Arrays.copyOf(state, b * 2);
            weight = Arrays.copyOf(weight, b * 2);
        }
        if (time[b] == null) {
            time[b] = new long[BLOCK];
            thread[b] = new int[BLOCK];
            stack[b] = new int[BLOCK];
            state[b] = new byte[BLOCK];
            weight[b] = new int[BLOCK];
        }
        int i = size & MASK;
        time[b][i] = timeNanos;
        thread[b][i] = threadId;
        stack[b][i] = stackId;
        state[b][i] = (byte) st.ordinal();
        weight[b][i] = w;
        size++;
    }

    public int size() {
        return size;
    }

    public long time(int i) {
        return time[i >>> SHIFT][i & MASK];
    }

    public int thread(int i) {
        return thread[i >>> SHIFT][i & MASK];
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
}
