package io.stallscope.agent.mitigate.advice;

import io.stallscope.agent.mitigate.RollFlushHooks;
import net.bytebuddy.asm.Advice;

/**
 * Marks the thread as inside Log/UnifiedLog.roll, the one place whose snapshot fsync is deferred, and
 * with which log: a deferred snapshot follows that log's directory when it is renamed.
 */
public final class RollMarkAdvice {
    private RollMarkAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    public static void enter(@Advice.This Object log) {
        RollFlushHooks.rollEntered(log);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit() {
        RollFlushHooks.rollExited();
    }
}
