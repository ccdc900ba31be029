package io.stallscope.agent.runtime;

import net.bytebuddy.asm.Advice;

/**
 * An enter advice that fails as the real one can before {@code Hooks.enter} catches anything (a StackOverflowError
 * on the call itself): ByteBuddy suppresses it and hands the exit advice its default start, 0.
 */
final class FailingEnterAdvice {
    private FailingEnterAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static long enter() {
        throw new StackOverflowError("enter advice failed on purpose");
    }
}
