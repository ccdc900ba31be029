package io.stallscope.agent.runtime;

import io.stallscope.agent.bootstrap.OpSink;
import io.stallscope.agent.bootstrap.ThreadState;
import io.stallscope.agent.model.OpKind;

import java.util.List;

/**
 * Keeps "op duration_ns" for every op recorded and "failed op: error" for every advice failure. A class of its own,
 * loaded only once the hooks are on the bootstrap class path.
 */
final class ListSink implements OpSink {
    private final List<String> recorded;
    private final List<Throwable> thrown;

    private ListSink(List<String> recorded, List<Throwable> thrown) {
        this.recorded = recorded;
        this.thrown = thrown;
    }

    static OpSink of(List<String> recorded) {
        return new ListSink(recorded, null);
    }

    /** As {@link #of(List)}, with each op's thrown (null when it did not fail) in {@code thrown}. */
    static OpSink of(List<String> recorded, List<Throwable> thrown) {
        return new ListSink(recorded, thrown);
    }

    @Override
    public void record(int op, long startNanos, long durationNanos, Object subject, long bytes, Throwable thrown,
                       ThreadState thread) {
        if (this.thrown != null) {
            this.thrown.add(thrown);
        }
        recorded.add(OpKind.name(op) + " " + durationNanos);
    }

    @Override
    public void adviceFailed(int op, Throwable error) {
        recorded.add("failed " + op + ": " + error.getClass().getSimpleName());
    }
}
