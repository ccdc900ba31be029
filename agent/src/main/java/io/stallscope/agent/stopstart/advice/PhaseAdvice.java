package io.stallscope.agent.stopstart.advice;

import io.stallscope.agent.stopstart.StopStartHooks;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * Times one phase of a stop or a start. The first two arguments, when there are any, tell which log dir or
 * partition (a File) and whether the previous stop was clean (loadLog's boolean).
 */
public final class PhaseAdvice {
    private PhaseAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    public static long enter(@PhaseId int phase, @Advice.This(optional = true) Object self,
                             @Advice.Argument(value = 0, optional = true, typing = Assigner.Typing.DYNAMIC) Object arg0,
                             @Advice.Argument(value = 1, optional = true, typing = Assigner.Typing.DYNAMIC) Object arg1) {
        return StopStartHooks.enter(phase, self, arg0, arg1);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit(@PhaseId int phase, @Advice.Enter long start, @Advice.This(optional = true) Object self,
                            @Advice.Argument(value = 0, optional = true, typing = Assigner.Typing.DYNAMIC) Object arg0) {
        StopStartHooks.exit(phase, start, self, arg0);
    }
}
