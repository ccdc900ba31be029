package io.stallscope.agent.mitigate;

import io.stallscope.agent.kafka.KafkaTarget;
import io.stallscope.agent.kafka.KafkaTargets;
import io.stallscope.agent.kafka.Resolution;
import io.stallscope.agent.kafka.TargetResolver;
import io.stallscope.agent.mitigate.advice.DelayedFlushDropAdvice;
import io.stallscope.agent.mitigate.advice.ScheduleDelayAdvice;
import io.stallscope.agent.mitigate.advice.ScheduleDelayWithUnitAdvice;
import io.stallscope.agent.mitigate.advice.SnapshotFlushRetargetAdvice;
import net.bytebuddy.asm.Advice;

/**
 * mitigate.segment.flush.delay: every roll schedules a flush of the rolled segment right away, and its
 * fsync competes with the appends that follow. Deferred by a bounded delay, the kernel's writeback has
 * usually written the pages by then and the fsync finds little to do. The flush is dropped only when its
 * log was renamed for deletion meanwhile (see {@link SegmentFlushDelayHooks#dropFlush}). From 3.7 the job's
 * own snapshot fsync follows a rename made inside the delay (see {@link SegmentFlushDelayHooks#snapshotToFlush}).
 */
final class SegmentFlushDelayMitigation {
    private final String description;
    private final Transformations transformations = new Transformations();

    private SegmentFlushDelayMitigation(String description) {
        this.description = description;
    }

    static SegmentFlushDelayMitigation resolve(TargetResolver shapes, long delayNanos) {
        String delay = "segment-flush-delay " + (delayNanos / 1_000_000) + " ms";
        Resolution java = shapes.resolve(KafkaTargets.SCHEDULER_SCHEDULE);
        Resolution scala = shapes.resolve(KafkaTargets.SCALA_SCHEDULER_SCHEDULE);
        if (!java.isResolved() && !scala.isResolved()) {
            return new SegmentFlushDelayMitigation(delay + " skipped: no KafkaScheduler.schedule of the expected shape ("
                + java.reason() + "; " + scala.reason() + ")");
        }
        Resolution snapshotFlush = shapes.resolve(KafkaTargets.SNAPSHOT_FLUSH);
        SegmentFlushDelayMitigation m = new SegmentFlushDelayMitigation(delay + " on (the flush-log job after each roll"
            + (snapshotFlush.isResolved() ? "; its snapshot fsync follows renames" : "") + ")");
        if (java.isResolved()) {
            m.transformations.add(java.declaringClass(),
                Advice.to(ScheduleDelayAdvice.class).on(KafkaTargets.SCHEDULER_SCHEDULE.shape()));
        }
        if (scala.isResolved()) {
            m.transformations.add(scala.declaringClass(),
                Advice.to(ScheduleDelayWithUnitAdvice.class).on(KafkaTargets.SCALA_SCHEDULER_SCHEDULE.shape()));
        }
        // the delayed job's flush, dropped when its log was renamed for deletion meanwhile (2.8 to 4.4)
        for (KafkaTarget flush : new KafkaTarget[] {KafkaTargets.LOG_FLUSH, KafkaTargets.UNIFIED_LOG_FLUSH}) {
            Resolution r = shapes.resolve(flush);
            if (r.isResolved()) {
                m.transformations.add(r.declaringClass(), Advice.to(DelayedFlushDropAdvice.class).on(flush.shape()));
            }
        }
        // 3.7+: the job's fsync of the roll's snapshot, by a path a rename inside the delay may have moved
        if (snapshotFlush.isResolved()) {
            m.transformations.add(snapshotFlush.declaringClass(),
                Advice.to(SnapshotFlushRetargetAdvice.class).on(KafkaTargets.SNAPSHOT_FLUSH.shape()));
        }
        return m;
    }

    boolean applies() {
        return !transformations.byType().isEmpty();
    }

    String describe() {
        return description;
    }

    Transformations transformations() {
        return transformations;
    }
}
