package io.stallscope.agent.mitigate.advice;

import io.stallscope.agent.mitigate.RollFlushHooks;
import net.bytebuddy.asm.Advice;

/**
 * On Log.flush(long) (2.8), UnifiedLog.flush(long, boolean) and LocalLog.markFlushed(long) (3.x): the
 * log's deferred snapshots are fsynced before the recovery point can move. Not suppressed: an I/O
 * error must fail the flush, as Kafka 3.7's flushProducerStateSnapshot does.
 */
public final class FlushBarrierAdvice {
    private FlushBarrierAdvice() {
    }

    @Advice.OnMethodEnter
    public static void enter(@Advice.This Object log) throws java.io.IOException {
        RollFlushHooks.beforeFlush(log);
    }
}
