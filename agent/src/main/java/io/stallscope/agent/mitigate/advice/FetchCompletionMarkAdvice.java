package io.stallscope.agent.mitigate.advice;

import io.stallscope.agent.mitigate.PrefetchHooks;
import net.bytebuddy.asm.Advice;

/**
 * Marks the thread as inside DelayedFetch.onComplete: the fetch read it makes there is a completion from the
 * purgatory, on whichever thread got there, and is not warmed.
 */
public final class FetchCompletionMarkAdvice {
    private FetchCompletionMarkAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    public static void enter() {
        PrefetchHooks.completionEntered();
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit() {
        PrefetchHooks.completionExited();
    }
}
