package io.stallscope.agent.instrument.advice;

import io.stallscope.agent.bootstrap.Hooks;
import net.bytebuddy.asm.Advice;

/**
 * Inlined into the JDK's FileChannelImpl.transferTo: the subject is the channel's path field, read
 * in place because reflection into java.base would need the module opened.
 */
public final class TransferToAdvice {
    private TransferToAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    public static long enter(@OpId int op, @Advice.FieldValue("path") String subject) {
        return Hooks.enter(op, subject);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit(@OpId int op, @Advice.Enter long start, @Advice.FieldValue("path") String path,
                            @Advice.Return long bytes, @Advice.Thrown Throwable thrown) {
        Hooks.exit(op, start, path, thrown == null ? bytes : -1L, thrown);
    }
}
