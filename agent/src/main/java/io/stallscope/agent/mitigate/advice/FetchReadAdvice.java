package io.stallscope.agent.mitigate.advice;

import io.stallscope.agent.mitigate.PrefetchHooks;
import net.bytebuddy.asm.Advice;

/** On the exit of ReplicaManager's read of a fetch's partitions: warm what the network thread will send. */
public final class FetchReadAdvice {
    private FetchReadAdvice() {
    }

    @Advice.OnMethodExit(suppress = Throwable.class)
    public static void exit(@Advice.This Object replicaManager, @Advice.AllArguments Object[] args,
                            @Advice.Return Object results) {
        PrefetchHooks.afterFetchRead(replicaManager, args, results);
    }
}
