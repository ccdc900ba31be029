package io.stallscope.agent.bootstrap;

/**
 * The entry points that advice calls. Lives on the bootstrap class path so that advice inlined
 * into JDK classes (FileChannelImpl) can reach it as well as advice inlined into Kafka's classes.
 *
 * <p>{@link #enter} returns a start timestamp, or one of two markers: {@link #INACTIVE} (no sink,
 * nothing to undo) or {@link #NESTED} (an outer call of the same op is timing; depth was raised and
 * {@link #exit} lowers it again).
 */
public final class Hooks {
    public static final long INACTIVE = Long.MIN_VALUE;
    public static final long NESTED = Long.MIN_VALUE + 1;

    private static volatile OpSink sink;
    private static final ThreadLocal<ThreadState> STATE = ThreadLocal.withInitial(ThreadRegistry::register);

    private Hooks() {
    }

    public static void install(OpSink newSink) {
        sink = newSink;
    }

    public static OpSink sink() {
        return sink;
    }

    /** An op whose subject is not known until it ends: other threads see it open, with no subject. */
    public static long enter(int op) {
        return enter(op, null);
    }

    /**
     * @param subject what the op works on, as {@link #exit} gets it: kept on the thread's state while the op runs
     *                (a reference, no copy), so a slow op elsewhere can tell whether this one shared its file
     */
    public static long enter(int op, Object subject) {
        if (sink == null) {
            return INACTIVE;
        }
        ThreadState state = STATE.get();
        if (state.depth[op]++ > 0) {
            return NESTED;
        }
        long start = System.nanoTime();
        // nanoTime may legitimately be any value; nudge the two marker values out of the way
        start = start <= NESTED ? NESTED + 1 : start;
        state.opened(op, start, subject);
        return start;
    }

    public static void exit(int op, long start, Object subject, long bytes, Throwable thrown) {
        if (start == INACTIVE) {
            return;
        }
        ThreadState state = STATE.get();
        if (state.depth[op] > 0) {
            state.depth[op]--;
        }
        if (start == NESTED) {
            return;
        }
        long end = System.nanoTime();
        state.closed(op, start, end, subject);
        long duration = end - start;
        OpSink current = sink;
        if (current == null) {
            return;
        }
        try {
            current.record(op, start, duration, subject, bytes, thrown, state);
        } catch (Throwable t) {
            try {
                current.adviceFailed(op, t);
            } catch (Throwable ignored) {
                // the broker's thread must never see the agent fail
            }
        }
    }
}
