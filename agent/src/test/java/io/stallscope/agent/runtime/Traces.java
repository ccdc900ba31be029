package io.stallscope.agent.runtime;

import io.stallscope.agent.bootstrap.OpTrace;
import io.stallscope.agent.bootstrap.ThreadRegistry;
import io.stallscope.agent.bootstrap.ThreadState;
import io.stallscope.agent.model.OpKind;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads threads' states as a slow op on another thread does, for {@link InFlightOpsTest}. A class of its own: the
 * test must name no hook class in a signature, or JUnit loads it before the hooks are on the bootstrap path.
 */
final class Traces {
    private Traces() {
    }

    /** The registered state of {@code thread}, or null when the registry has none for it. */
    static ThreadState stateOf(Thread thread) {
        for (ThreadState state : ThreadRegistry.live()) {
            if (state.owner() == thread) {
                return state;
            }
        }
        return null;
    }

    static boolean registered(Thread thread) {
        return stateOf(thread) != null;
    }

    /** How many states the registry keeps now, and how many of them belong to threads that have died. */
    static int[] registeredAndDead() {
        List<ThreadState> all = ThreadRegistry.registered();
        int dead = 0;
        for (ThreadState state : all) {
            Thread owner = state.owner();
            if (owner == null || !owner.isAlive()) {
                dead++;
            }
        }
        return new int[] {all.size(), dead};
    }

    /** The thread's open ops, then its ring newest first: "op depth running|ended subject". */
    static List<String> opsOf(Thread thread) {
        ThreadState state = stateOf(thread);
        if (state == null) {
            throw new AssertionError("no state registered for " + thread.getName());
        }
        OpTrace trace = new OpTrace();
        if (!state.read(trace)) {
            throw new AssertionError("the state changed on every read, yet its thread is waiting");
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < trace.size(); i++) {
            out.add(OpKind.name(trace.op(i)) + " " + trace.depth(i) + " "
                + (trace.end(i) == OpTrace.RUNNING ? "running" : "ended") + " " + trace.subject(i));
        }
        return out;
    }
}
