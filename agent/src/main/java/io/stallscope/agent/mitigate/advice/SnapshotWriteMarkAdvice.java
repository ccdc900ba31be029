package io.stallscope.agent.mitigate.advice;

import io.stallscope.agent.mitigate.RollFlushHooks;
import net.bytebuddy.asm.Advice;

import java.io.File;

/** Tells the force() substitute which snapshot file the current writeSnapshot call writes. */
public final class SnapshotWriteMarkAdvice {
    private SnapshotWriteMarkAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    public static void enter(@Advice.Argument(0) File snapshot) {
        RollFlushHooks.snapshotWriteEntered(snapshot);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit() {
        RollFlushHooks.snapshotWriteExited();
    }
}
