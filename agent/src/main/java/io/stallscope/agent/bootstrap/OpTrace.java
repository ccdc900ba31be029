package io.stallscope.agent.bootstrap;

/**
 * A copy of one thread's ops for blame, made by {@link ThreadState#read}: its open ops (end {@link #RUNNING}) and
 * its recently ended long ones. Made and read on the slow path only; one is reused across the threads read.
 */
public final class OpTrace {
    /** The end of an op still open when the copy was made. */
    public static final long RUNNING = Long.MIN_VALUE;

    private static final int CAPACITY = ThreadState.STACK + ThreadState.RING;
    private final int[] op = new int[CAPACITY];
    private final int[] depth = new int[CAPACITY];
    private final long[] start = new long[CAPACITY];
    private final long[] end = new long[CAPACITY];
    private final Object[] subject = new Object[CAPACITY];
    private int size;

    void clear() {
        for (int i = 0; i < size; i++) {
            subject[i] = null;
        }
        size = 0;
    }

    /** Public for tests that build a thread's ops by hand. */
    public void add(int op, int depth, long start, long end, Object subject) {
        if (size == CAPACITY) {
            return;
        }
        this.op[size] = op;
        this.depth[size] = depth;
        this.start[size] = start;
        this.end[size] = end;
        this.subject[size] = subject;
        size++;
    }

    public int size() {
        return size;
    }

    public int op(int i) {
        return op[i];
    }

    /** 0 for an op open on no other, 1 for one inside it, ... */
    public int depth(int i) {
        return depth[i];
    }

    public long start(int i) {
        return start[i];
    }

    /** {@link #RUNNING} while the op is still open. */
    public long end(int i) {
        return end[i];
    }

    public Object subject(int i) {
        return subject[i];
    }
}
