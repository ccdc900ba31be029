package io.stallscope.agent.instrument.advice;

import io.stallscope.agent.bootstrap.Hooks;
import io.stallscope.agent.bootstrap.SubjectWith;
import net.bytebuddy.asm.Advice;

/**
 * Times RemoteStorageManager.fetchIndex(metadata, indexType): the subject is the remote segment's metadata with the
 * index type, so that the op's path names which index (its file suffix as Kafka names the local one).
 */
public final class RemoteIndexAdvice {
    private RemoteIndexAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    public static Object enter(@OpId int op, @Advice.Argument(0) Object segment, @Advice.Argument(1) Object indexType,
                               @Advice.Local("start") long start) {
        SubjectWith subject = new SubjectWith(segment, indexType);
        start = Hooks.enter(op, subject);
        return subject;
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit(@OpId int op, @Advice.Enter Object subject, @Advice.Local("start") long start,
                            @Advice.Thrown Throwable thrown) {
        Hooks.exit(op, start, subject, -1L, thrown);
    }
}
