package io.stallscope.agent.mitigate.advice;

import io.stallscope.agent.mitigate.RollFlushHooks;
import net.bytebuddy.asm.Advice;

/**
 * On UnifiedLog.flush(long offset, boolean includingOffset) (3.2 on): notes the flush, up to what it flushes
 * (offset, or offset + 1 when inclusive: never less than the recovery point it marks), so that its first
 * segment flush, inside Kafka's maybeHandleIOException, fsyncs the log's deferred snapshots first.
 */
public final class FlushUpToBarrierAdvice {
    private FlushUpToBarrierAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    public static void enter(@Advice.This Object log, @Advice.Argument(0) long offset,
                             @Advice.Argument(1) boolean includingOffset) {
        RollFlushHooks.logFlushEntered(log, includingOffset ? offset + 1 : offset);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit() {
        RollFlushHooks.logFlushExited();
    }
}
