package io.stallscope.agent.bootstrap;

/**
 * Per-thread bookkeeping: nesting depth per op (roll() calls roll(Optional), TimeIndex.resize calls
 * super.resize: only the outermost call is timed) and the thread's role, cached by the sink
 * against the thread name it was derived from.
 */
public final class ThreadState {
    final int[] depth = new int[Op.COUNT];
    /** The name the cached role was derived from; compared by reference, names rarely change. */
    public String roleName;
    public int role = -1;
    /** Timed (outermost) ops open on this thread: more than 0 while an op runs inside another one. */
    public int open;
    /** Slow ops that ended inside an op still open, kept by the sink for the enclosing op's one log line. */
    public Object slowInner;
}
