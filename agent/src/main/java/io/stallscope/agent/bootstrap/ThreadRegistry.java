package io.stallscope.agent.bootstrap;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The threads that have run a timed op, so that a slow op can read what the others were doing. A state joins
 * once, when its thread first enters a timed op; dead threads' states are dropped when the registry is read
 * (on the slow path), not on any thread's fast path.
 */
public final class ThreadRegistry {
    private static final ConcurrentLinkedQueue<ThreadState> STATES = new ConcurrentLinkedQueue<>();

    private ThreadRegistry() {
    }

    /** A new state for the calling thread, registered. */
    static ThreadState register() {
        ThreadState state = new ThreadState(Thread.currentThread());
        STATES.add(state);
        return state;
    }

    /** The states of the threads alive now. */
    public static List<ThreadState> live() {
        List<ThreadState> out = new ArrayList<>();
        for (Iterator<ThreadState> it = STATES.iterator(); it.hasNext(); ) {
            ThreadState state = it.next();
            Thread owner = state.owner();
            if (owner == null || !owner.isAlive()) {
                it.remove();
            } else {
                out.add(state);
            }
        }
        return out;
    }
}
