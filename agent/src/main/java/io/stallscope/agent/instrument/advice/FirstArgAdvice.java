package io.stallscope.agent.instrument.advice;

import io.stallscope.agent.bootstrap.Hooks;
import net.bytebuddy.asm.Advice;

/** Times a method whose first argument is the subject (a snapshot File or Path), static or not. */
public final class FirstArgAdvice {
    private FirstArgAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    public static long enter(@OpId int op, @Advice.Argument(0) Object subject) {
        return Hooks.enter(op, subject);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit(@OpId int op, @Advice.Enter long start, @Advice.Argument(0) Object subject,
                            @Advice.Thrown Throwable thrown) {
        Hooks.exit(op, start, subject, -1L, thrown);
    }
}
