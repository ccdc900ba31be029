package io.stallscope.agent.instrument.advice;

import io.stallscope.agent.bootstrap.Hooks;
import net.bytebuddy.asm.Advice;

/**
 * Counts RemoteIndexCache.getIndexEntry as a hit or a miss, not timed: a miss is a lookup inside which
 * {@link RemoteIndexLoadAdvice} saw the cache's loader start on the same thread. {@code op} is remote_index_load,
 * the op it goes with (its advice errors are counted there).
 */
public final class RemoteIndexLookupAdvice {
    private RemoteIndexLookupAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    public static long enter(@OpId int op) {
        return Hooks.indexCacheLookupStarted(op);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit(@OpId int op, @Advice.Enter long mark, @Advice.Thrown Throwable thrown) {
        Hooks.indexCacheLookupEnded(op, mark, thrown);
    }
}
