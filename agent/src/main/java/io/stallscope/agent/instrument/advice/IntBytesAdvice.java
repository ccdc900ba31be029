package io.stallscope.agent.instrument.advice;

import io.stallscope.agent.bootstrap.Hooks;
import net.bytebuddy.asm.Advice;

/** Times an instance method returning the bytes it wrote as an int (FileRecords.append). */
public final class IntBytesAdvice {
    private IntBytesAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    public static long enter(@OpId int op, @Advice.This Object subject) {
        return Hooks.enter(op, subject);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit(@OpId int op, @Advice.Enter long start, @Advice.This Object self,
                            @Advice.Return int bytes, @Advice.Thrown Throwable thrown) {
        Hooks.exit(op, start, self, thrown == null ? bytes : -1L, thrown);
    }
}
