package io.stallscope.agent.holes.advice;

import io.stallscope.agent.holes.HoleHooks;
import net.bytebuddy.asm.Advice;

/** mitigate=hole-repair: marks the thread inside recoverLog, where a repair's return value is acted on. */
public final class RecoverLogAdvice {
    private RecoverLogAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    public static void enter() {
        HoleHooks.recoverLogEntered();
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit() {
        HoleHooks.recoverLogExited();
    }
}
