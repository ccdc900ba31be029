package io.stallscope.analyzer.analysis.view;

import io.stallscope.analyzer.model.State;

/**
 * What a thread's samples say it was doing, when nothing else is found: samples per {@link State} (weighted by
 * how many intervals each stands for) and how many of them sat in a storage system call.
 */
public record ThreadStates(ThreadView thread, long[] byState, long storage, long total) {
    public long of(State s) {
        return byState[s.ordinal()];
    }

    /** Samples not idle: running, blocked on a monitor, in native code or a storage call. */
    public long busy() {
        return total - of(State.SLEEPING) - of(State.PARKED) - of(State.WAITING) + Math.min(storage, of(State.SLEEPING)
                + of(State.PARKED) + of(State.WAITING));
    }
}
