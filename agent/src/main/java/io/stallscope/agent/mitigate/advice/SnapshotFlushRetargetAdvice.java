package io.stallscope.agent.mitigate.advice;

import io.stallscope.agent.mitigate.SegmentFlushDelayHooks;
import net.bytebuddy.asm.Advice;

import java.nio.file.Path;

/**
 * On UnifiedLog.flushProducerStateSnapshot(Path) (3.7 on; kafka-storage from 4.1), with the segment-flush
 * delay: the delayed flush-log job's fsync of the roll's snapshot follows a rename of its log made inside the
 * delay, and is skipped for a log renamed for deletion. An exception of ours leaves Kafka's call as it was.
 */
public final class SnapshotFlushRetargetAdvice {
    private SnapshotFlushRetargetAdvice() {
    }

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
    public static boolean enter(@Advice.This Object log, @Advice.Argument(value = 0, readOnly = false) Path snapshot) {
        Path now = SegmentFlushDelayHooks.snapshotToFlush(log, snapshot);
        if (now == null) {
            return true;
        }
        snapshot = now;
        return false;
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit(@Advice.Thrown Throwable thrown) {
        SegmentFlushDelayHooks.snapshotFlushExited(thrown);
    }
}
