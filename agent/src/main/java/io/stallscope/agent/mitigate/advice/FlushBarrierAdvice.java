package io.stallscope.agent.mitigate.advice;

import io.stallscope.agent.mitigate.RollFlushHooks;
import net.bytebuddy.asm.Advice;

/**
 * On Log.flush(long offset) (2.8) and LocalLog.markFlushed(long recoveryPoint) (3.x): the log's deferred
 * snapshots up to that offset are fsynced before the recovery point can move to it. Not suppressed: an
 * I/O error must fail the flush, as Kafka 3.7's flushProducerStateSnapshot does.
 */
public final class FlushBarrierAdvice {
    private FlushBarrierAdvice() {
    }

    @Advice.OnMethodEnter
    public static void enter(@Advice.This Object log, @Advice.Argument(0) long upToOffset) throws java.io.IOException {
        RollFlushHooks.beforeFlush(log, upToOffset);
    }
}
