package io.stallscope.agent.mitigate.advice;

import io.stallscope.agent.mitigate.RollFlushHooks;
import net.bytebuddy.asm.Advice;

/**
 * On LogSegment.flush(): the first one inside a log's flush fsyncs that log's deferred snapshots. It runs
 * inside Kafka's maybeHandleIOException (Log.flush in 2.8, UnifiedLog.flush -> LocalLog.flush in 3.x), so
 * an I/O error goes through LogDirFailureChannel: the log dir goes offline, as it does when the same
 * fsync fails in the roll without the agent. Not suppressed.
 */
public final class SegmentFlushBarrierAdvice {
    private SegmentFlushBarrierAdvice() {
    }

    @Advice.OnMethodEnter
    public static void enter() throws java.io.IOException {
        RollFlushHooks.segmentFlushEntered();
    }
}
