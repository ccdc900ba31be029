package io.stallscope.agent.runtime;

import io.stallscope.agent.bootstrap.Hooks;
import io.stallscope.agent.bootstrap.OpSink;
import io.stallscope.agent.bootstrap.ThreadState;

/**
 * Touches the bootstrap hook classes for the test. Kept out of the test class itself: verifying a
 * class that names them would load them through the app class loader before the agent puts them on
 * the bootstrap path, a situation that cannot arise in a broker (nothing there names them first).
 */
final class SinkSwap {
    private SinkSwap() {
    }

    /** Runs the action with a sink whose recording throws, standing for a bug in the reporting code. */
    static void withFailingSink(Runnable action) {
        OpSink real = Hooks.sink();
        Hooks.install(new OpSink() {
            @Override
            public void record(int op, long s, long d, Object subject, long b, Throwable t, ThreadState st) {
                throw new IllegalStateException("reporting bug");
            }

            @Override
            public void adviceFailed(int op, Throwable error) {
                real.adviceFailed(op, error);
            }
        });
        try {
            action.run();
        } finally {
            Hooks.install(real);
        }
    }

    static boolean noSink() {
        return Hooks.sink() == null;
    }
}
