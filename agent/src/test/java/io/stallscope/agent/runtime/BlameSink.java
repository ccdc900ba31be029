package io.stallscope.agent.runtime;

import io.stallscope.agent.bootstrap.OpSink;
import io.stallscope.agent.bootstrap.ThreadState;
import io.stallscope.agent.model.SubjectPaths;
import io.stallscope.agent.model.ThreadRoles;
import io.stallscope.agent.report.blame.BlameFinder;
import io.stallscope.agent.report.blame.Culprit;
import io.stallscope.agent.report.blame.LogDirDevices;

import java.util.List;

/**
 * Runs the blame of OpRecorder's slow path on every op of one kind ended on one thread, and keeps what it said
 * ("none" when it named nobody). A class of its own, loaded only once the hooks are on the bootstrap class path.
 */
final class BlameSink implements OpSink {
    private final int victimOp;
    private final Thread victimThread;
    private final List<String> said;
    private final BlameFinder finder = new BlameFinder(new ThreadRoles(List.of("CONTROLLER")));

    private BlameSink(int victimOp, Thread victimThread, List<String> said) {
        this.victimOp = victimOp;
        this.victimThread = victimThread;
        this.said = said;
    }

    static OpSink of(int victimOp, Thread victimThread, List<String> said) {
        return new BlameSink(victimOp, victimThread, said);
    }

    @Override
    public void record(int op, long startNanos, long durationNanos, Object subject, long bytes, Throwable thrown,
                       ThreadState thread) {
        if (op != victimOp || Thread.currentThread() != victimThread) {
            return;
        }
        Culprit c = finder.find(op, thread, SubjectPaths.pathOf(subject), startNanos, startNanos + durationNanos,
            LogDirDevices.NONE);
        said.add(c == null ? "none" : c.describe());
    }

    @Override
    public void adviceFailed(int op, Throwable error) {
        throw new AssertionError(error);
    }
}
