package io.stallscope.agent.bootstrap;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The threads that have run a timed op under one install of the hooks ({@link HookSession}), so that a slow op
 * can read what the others were doing. A state joins once, when its thread first enters a timed op; that is also
 * when dead threads' states are dropped, so a broker whose threads come and go keeps only about as many states as
 * it has threads, and no slow op is needed for it. A detach empties the registry and every state in it.
 */
public final class ThreadRegistry {
    private final ConcurrentLinkedQueue<ThreadState> states = new ConcurrentLinkedQueue<>();

    ThreadRegistry() {
    }

    /** The states of the threads alive now under the hooks installed now; none when detached. */
    public static List<ThreadState> live() {
        HookSession session = Hooks.session();
        return session == null ? Collections.emptyList() : session.registry.alive();
    }

    /** Every state registered now, a dead thread's included until it is dropped: what the registry keeps. */
    public static List<ThreadState> registered() {
        HookSession session = Hooks.session();
        return session == null ? Collections.emptyList() : new ArrayList<>(session.registry.states);
    }

    /** A new state for the calling thread, registered; the states of threads that have died since are dropped. */
    ThreadState register() {
        ThreadState state = new ThreadState(Thread.currentThread());
        alive();
        states.add(state);
        return state;
    }

    private List<ThreadState> alive() {
        List<ThreadState> out = new ArrayList<>();
        for (Iterator<ThreadState> it = states.iterator(); it.hasNext(); ) {
            ThreadState state = it.next();
            Thread owner = state.owner();
            if (owner == null || !owner.isAlive()) {
                it.remove();
                state.empty();
            } else {
                out.add(state);
            }
        }
        return out;
    }

    /** At detach: nothing registered, and no state keeps a subject, a role or a pending line. */
    void empty() {
        for (ThreadState state; (state = states.poll()) != null; ) {
            state.empty();
        }
    }
}
