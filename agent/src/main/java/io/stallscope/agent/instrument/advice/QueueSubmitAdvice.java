package io.stallscope.agent.instrument.advice;

import io.stallscope.agent.bootstrap.QueuedTasks;
import net.bytebuddy.asm.Advice;

/**
 * Enter-only advice on RemoteLogManager.asyncRead(fetchInfo, callback): notes when the read was queued, by its
 * fetchInfo, which the RemoteLogReader it submits holds; {@link RemoteReadAdvice} ends the wait.
 */
public final class QueueSubmitAdvice {
    private QueueSubmitAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    public static void enter(@Advice.Argument(0) Object fetchInfo) {
        QueuedTasks.submitted(fetchInfo);
    }
}
