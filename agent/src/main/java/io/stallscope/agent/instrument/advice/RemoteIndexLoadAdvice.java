package io.stallscope.agent.instrument.advice;

import io.stallscope.agent.bootstrap.Hooks;
import net.bytebuddy.asm.Advice;

/**
 * Times RemoteIndexCache.createCacheEntry(metadata) as {@link FirstArgAdvice} does, its subject the remote segment's
 * metadata, and first tells the lookup it runs in ({@link RemoteIndexLookupAdvice}, on the same thread) that it missed.
 */
public final class RemoteIndexLoadAdvice {
    private RemoteIndexLoadAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    public static long enter(@OpId int op, @Advice.Argument(0) Object subject) {
        Hooks.indexCacheLoadStarted(op);
        return Hooks.enter(op, subject);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit(@OpId int op, @Advice.Enter long start, @Advice.Argument(0) Object subject,
                            @Advice.Thrown Throwable thrown) {
        Hooks.exit(op, start, subject, -1L, thrown);
    }
}
