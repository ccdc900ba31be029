package io.stallscope.agent.holes.advice;

import io.stallscope.agent.holes.HoleHooks;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * mitigate=hole-repair, in place of SegmentRecoveredAdvice: the same detection on the exit of recoverSegment, and the
 * value Kafka's recoverLog reads may become positive (truncate: delete the later segments). A throwable in here is
 * suppressed before the assignment, so Kafka's own value is returned.
 */
public final class SegmentRepairAdvice {
    private SegmentRepairAdvice() {
    }

    @Advice.OnMethodExit(suppress = Throwable.class)
    public static void exit(@Advice.This(optional = true) Object self,
                            @Advice.Argument(value = 0, typing = Assigner.Typing.DYNAMIC) Object segment,
                            @Advice.Argument(value = 1, optional = true, typing = Assigner.Typing.DYNAMIC) Object arg1,
                            @Advice.Return(readOnly = false) int truncatedBytes) {
        truncatedBytes = HoleHooks.recovered(self, segment, arg1, truncatedBytes);
    }
}
