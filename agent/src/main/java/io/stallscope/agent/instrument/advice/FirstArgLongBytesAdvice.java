package io.stallscope.agent.instrument.advice;

import io.stallscope.agent.bootstrap.Hooks;
import net.bytebuddy.asm.Advice;

/** Times a method whose first argument is the subject and which returns bytes moved as a long (TLS transferFrom). */
public final class FirstArgLongBytesAdvice {
    private FirstArgLongBytesAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    public static long enter(@OpId int op, @Advice.Argument(0) Object subject) {
        return Hooks.enter(op, subject);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit(@OpId int op, @Advice.Enter long start, @Advice.Argument(0) Object subject,
                            @Advice.Return long bytes, @Advice.Thrown Throwable thrown) {
        Hooks.exit(op, start, subject, thrown == null ? bytes : -1L, thrown);
    }
}
