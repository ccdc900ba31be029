package io.stallscope.agent.runtime;

import io.stallscope.agent.bootstrap.OpSink;
import io.stallscope.agent.bootstrap.ThreadState;
import io.stallscope.agent.model.ThreadRole;
import io.stallscope.agent.report.SlowOpLog;

import java.util.List;

/**
 * Feeds a real SlowOpLog as OpRecorder does. A class of its own, loaded only after the hooks are on the
 * bootstrap class path: a class inside the test (inline or nested) would be loaded, and OpSink with it,
 * when JUnit discovers the test.
 */
final class SlowLogSink implements OpSink {
    private final SlowOpLog slowLog;
    private final List<Integer> openAtEnd;
    /** The test's thread: an op another thread of the test JVM runs meanwhile (a woven JDK method) is not the test's. */
    private final Thread owner = Thread.currentThread();

    private SlowLogSink(SlowOpLog slowLog, List<Integer> openAtEnd) {
        this.slowLog = slowLog;
        this.openAtEnd = openAtEnd;
    }

    static OpSink of(SlowOpLog slowLog, List<Integer> openAtEnd) {
        return new SlowLogSink(slowLog, openAtEnd);
    }

    @Override
    public void record(int op, long startNanos, long durationNanos, Object subject, long bytes,
                       Throwable thrown, ThreadState thread) {
        if (thread.owner() != owner) {
            return;
        }
        openAtEnd.add(thread.open);
        slowLog.slow(op, durationNanos, "t", ThreadRole.REQUEST_HANDLER, null, bytes, null, thrown, thread);
    }

    @Override
    public void adviceFailed(int op, Throwable error) {
        throw new AssertionError(error);
    }
}

