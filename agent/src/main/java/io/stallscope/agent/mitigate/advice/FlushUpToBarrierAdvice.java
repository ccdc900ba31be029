package io.stallscope.agent.mitigate.advice;

import io.stallscope.agent.mitigate.RollFlushHooks;
import net.bytebuddy.asm.Advice;

/**
 * On UnifiedLog.flush(long offset, boolean includingOffset) (3.x): the log's deferred snapshots up to
 * what it flushes (offset, or offset + 1 when inclusive: never less than the recovery point it marks)
 * are fsynced first. Not suppressed: an I/O error must fail the flush.
 */
public final class FlushUpToBarrierAdvice {
    private FlushUpToBarrierAdvice() {
    }

    @Advice.OnMethodEnter
    public static void enter(@Advice.This Object log, @Advice.Argument(0) long offset,
                             @Advice.Argument(1) boolean includingOffset) throws java.io.IOException {
        RollFlushHooks.beforeFlush(log, includingOffset ? offset + 1 : offset);
    }
}
