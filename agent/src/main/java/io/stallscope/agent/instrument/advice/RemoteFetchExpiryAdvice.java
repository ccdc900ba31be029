package io.stallscope.agent.instrument.advice;

import io.stallscope.agent.instrument.RemoteFetchExpiry;
import net.bytebuddy.asm.Advice;

/**
 * Exit-only advice on DelayedRemoteFetch.onExpiration(), also when it threw (its Futures are cancelled first): the
 * reads it cancelled in the reader pool's queue end their remote_queue_wait here, failed, since they never run.
 */
public final class RemoteFetchExpiryAdvice {
    private RemoteFetchExpiryAdvice() {
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit(@OpId int op, @Advice.This Object delayedRemoteFetch) {
        RemoteFetchExpiry.expired(op, delayedRemoteFetch);
    }
}
