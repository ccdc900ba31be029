package io.stallscope.agent.bootstrap;

/**
 * One install of a sink: the sink, the threads' states made under it and their registry. A new install is a new
 * session, so nothing a thread cached under the last one (its role for the last options' listener names, a slow
 * inner op waiting for its enclosing op's line, its ring of ops) reaches the next; a detach empties the states.
 */
final class HookSession {
    final OpSink sink;
    final ThreadRegistry registry = new ThreadRegistry();
    private final ThreadLocal<ThreadState> states = ThreadLocal.withInitial(registry::register);

    HookSession(OpSink sink) {
        this.sink = sink;
    }

    ThreadState state() {
        return states.get();
    }

    /** Told of an exception in the agent's own code inside advice; never rethrows. */
    void failed(int op, Throwable error) {
        try {
            sink.adviceFailed(op, error);
        } catch (Throwable ignored) {
            // the broker's thread must never see the agent fail
        }
    }
}
