package io.stallscope.agent.holes.advice;

import io.stallscope.agent.holes.HoleHooks;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * On the exit of recoverSegment: the recovered segment, the bytes Kafka truncated from it, and where the log's
 * config and start offset are (the instance, or 3.0-3.2's LoadLogParams argument). Nothing here throws into Kafka.
 */
public final class SegmentRecoveredAdvice {
    private SegmentRecoveredAdvice() {
    }

    @Advice.OnMethodExit(suppress = Throwable.class)
    public static void exit(@Advice.This(optional = true) Object self,
                            @Advice.Argument(value = 0, typing = Assigner.Typing.DYNAMIC) Object segment,
                            @Advice.Argument(value = 1, optional = true, typing = Assigner.Typing.DYNAMIC) Object arg1,
                            @Advice.Return int truncatedBytes) {
        HoleHooks.recovered(self, segment, arg1, truncatedBytes);
    }
}
