package io.stallscope.agent.instrument.advice;

import io.stallscope.agent.bootstrap.Hooks;
import net.bytebuddy.asm.Advice;

/** Times an instance method; the instance is the subject (a segment, an index, a log). */
public final class ThisAdvice {
    private ThisAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    public static long enter(@OpId int op, @Advice.This Object subject) {
        return Hooks.enter(op, subject);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit(@OpId int op, @Advice.Enter long start, @Advice.This Object self,
                            @Advice.Thrown Throwable thrown) {
        Hooks.exit(op, start, self, -1L, thrown);
    }
}
