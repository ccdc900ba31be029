package io.stallscope.agent.mitigate.advice;

import io.stallscope.agent.mitigate.SegmentFlushDelayHooks;
import net.bytebuddy.asm.Advice;

/**
 * On Log.flush(long) (2.8) and UnifiedLog.flush(long, boolean) (3.0 on; kafka-storage from 4.1), with the segment-flush delay:
 * skips a delayed flush-log job whose log was renamed for deletion meanwhile (a log-dir move replaced it,
 * or its topic was deleted): it would flush closed segments and take the whole log dir offline.
 */
public final class DelayedFlushDropAdvice {
    private DelayedFlushDropAdvice() {
    }

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
    public static boolean enter(@Advice.This Object log) {
        return SegmentFlushDelayHooks.dropFlush(log);
    }
}
