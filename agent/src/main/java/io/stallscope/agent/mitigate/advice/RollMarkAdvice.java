package io.stallscope.agent.mitigate.advice;

import io.stallscope.agent.mitigate.RollFlushHooks;
import net.bytebuddy.asm.Advice;

/** Marks the thread as inside Log/UnifiedLog.roll, the one place whose snapshot fsync is deferred. */
public final class RollMarkAdvice {
    private RollMarkAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    public static void enter() {
        RollFlushHooks.rollEntered();
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit() {
        RollFlushHooks.rollExited();
    }
}
