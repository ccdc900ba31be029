package io.stallscope.agent.mitigate.advice;

import io.stallscope.agent.mitigate.PrefetchHooks;
import net.bytebuddy.asm.Advice;

/** On the exit of LogSegment.read (the full overload): warm what the network thread will send. */
public final class PrefetchAdvice {
    private PrefetchAdvice() {
    }

    @Advice.OnMethodExit(suppress = Throwable.class)
    public static void exit(@Advice.Return Object fetchDataInfo) {
        PrefetchHooks.afterRead(fetchDataInfo);
    }
}
