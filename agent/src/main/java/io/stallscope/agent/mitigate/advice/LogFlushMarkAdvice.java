package io.stallscope.agent.mitigate.advice;

import io.stallscope.agent.mitigate.RollFlushHooks;
import net.bytebuddy.asm.Advice;

/**
 * On Log.flush(long offset) (2.8, 3.0) and UnifiedLog.flush(long offset) (3.1): notes the flush so that its first segment flush, which is inside
 * Kafka's maybeHandleIOException, fsyncs the log's deferred snapshots up to offset first.
 */
public final class LogFlushMarkAdvice {
    private LogFlushMarkAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    public static void enter(@Advice.This Object log, @Advice.Argument(0) long upToOffset) {
        RollFlushHooks.logFlushEntered(log, upToOffset);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit() {
        RollFlushHooks.logFlushExited();
    }
}
