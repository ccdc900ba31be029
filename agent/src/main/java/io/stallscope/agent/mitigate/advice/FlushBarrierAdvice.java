package io.stallscope.agent.mitigate.advice;

import io.stallscope.agent.mitigate.RollFlushHooks;
import net.bytebuddy.asm.Advice;

/**
 * On LocalLog.markFlushed(long recoveryPoint) (3.1-3.6), which runs inside UnifiedLog.flush's
 * maybeHandleIOException: the log's deferred snapshots up to that offset are fsynced before the recovery
 * point can move to it. It runs under the UnifiedLog's lock (so no rename of this log is in flight), and
 * takes no other log's lock. Not suppressed: an I/O error must fail the flush and reach Kafka's handler.
 */
public final class FlushBarrierAdvice {
    private FlushBarrierAdvice() {
    }

    @Advice.OnMethodEnter
    public static void enter(@Advice.This Object log, @Advice.Argument(0) long upToOffset) throws java.io.IOException {
        RollFlushHooks.beforeFlushUnderLock(log, upToOffset);
    }
}
