package io.stallscope.agent.instrument.advice;

import io.stallscope.agent.bootstrap.Hooks;
import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.bootstrap.QueuedTasks;
import net.bytebuddy.asm.Advice;

/**
 * RemoteLogReader.call(): first the read's wait in the pool's queue ends (remote_queue_wait, from its asyncRead,
 * when that was seen), then the read is timed; the subject of both is the reader's fetchInfo (the partition).
 */
public final class RemoteReadAdvice {
    private RemoteReadAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    public static long enter(@OpId int op, @Advice.FieldValue("fetchInfo") Object fetchInfo) {
        QueuedTasks.started(Op.REMOTE_QUEUE_WAIT, fetchInfo);
        return Hooks.enter(op, fetchInfo);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit(@OpId int op, @Advice.Enter long start, @Advice.FieldValue("fetchInfo") Object fetchInfo,
                            @Advice.Thrown Throwable thrown) {
        Hooks.exit(op, start, fetchInfo, -1L, thrown);
    }
}
