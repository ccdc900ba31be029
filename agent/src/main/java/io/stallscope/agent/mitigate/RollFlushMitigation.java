package io.stallscope.agent.mitigate;

import io.stallscope.agent.kafka.KafkaTarget;
import io.stallscope.agent.kafka.KafkaTargets;
import io.stallscope.agent.kafka.Resolution;
import io.stallscope.agent.kafka.TargetResolver;
import io.stallscope.agent.mitigate.advice.FlushBarrierAdvice;
import io.stallscope.agent.mitigate.advice.FlushUpToBarrierAdvice;
import io.stallscope.agent.mitigate.advice.LogFlushMarkAdvice;
import io.stallscope.agent.mitigate.advice.RollMarkAdvice;
import io.stallscope.agent.mitigate.advice.SegmentFlushBarrierAdvice;
import io.stallscope.agent.mitigate.advice.SnapshotWriteMarkAdvice;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.asm.MemberSubstitution;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.matcher.ElementMatcher;

import java.nio.channels.FileChannel;

import static net.bytebuddy.matcher.ElementMatchers.isDeclaredBy;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

/**
 * KAFKA-9693 on Kafka 2.8-3.6: a roll writes the producer-state snapshot and fsyncs it on the request
 * handler under the partition lock. As Kafka 3.7 does (KAFKA-15046), the snapshot is written in the
 * roll without its fsync; the fsync runs when the log is next flushed (the flush-log job the roll
 * schedules, on the scheduler), before that flush moves the recovery point.
 *
 * <p>Woven in: roll marks the thread; inside writeSnapshot the call to FileChannel.force is replaced by
 * {@link RollFlushHooks#force}, which remembers the file instead when the thread is in a roll; the
 * log's flush (at its first LogSegment.flush, and LocalLog.markFlushed) first fsyncs that log's remembered
 * snapshots up to the offset it flushes to, no later ones (markFlushed runs under the partition lock).
 * Both run inside Kafka's maybeHandleIOException, so an I/O error takes the log dir offline as without
 * the agent.
 */
final class RollFlushMitigation {
    private final String notNeeded;
    private final String skipped;
    private final Transformations transformations = new Transformations();

    private RollFlushMitigation(String notNeeded, String skipped) {
        this.notNeeded = notNeeded;
        this.skipped = skipped;
    }

    /**
     * All or nothing: a part left out would be weaker than Kafka (a snapshot deferred with no barrier to sync it
     * before the recovery point moves, or a failed final sync that takes no dir offline), so one part missing
     * skips them all and the start-up line names it.
     */
    static RollFlushMitigation resolve(TargetResolver shapes, String kafkaVersion) {
        if (shapes.resolve(KafkaTargets.SNAPSHOT_FLUSH).isResolved()) {
            return new RollFlushMitigation("not needed on Kafka " + kafkaVersion
                + ": the snapshot fsync already runs in the flush-log job (KAFKA-15046)", null);
        }
        Resolution snapshot = shapes.resolve(KafkaTargets.ROLL_SNAPSHOT_WRITE);
        Resolution roll = shapes.resolve(KafkaTargets.ROLL_WITH_OPTION);
        // the flush to guard is the one of the class that rolls: flush(long) up to 3.1, flush(long, boolean) from 3.2
        KafkaTarget flushTarget = KafkaTargets.LOG_FLUSH;
        Resolution flush = shapes.resolve(flushTarget);
        if (!sameClass(flush, roll)) {
            Resolution unified = shapes.resolve(KafkaTargets.UNIFIED_LOG_FLUSH);
            // name the one this version should have when neither fits
            if (sameClass(unified, roll) || flush.status() != Resolution.Status.MISMATCHED) {
                flushTarget = KafkaTargets.UNIFIED_LOG_FLUSH;
                flush = unified;
            }
        }
        Resolution segmentFlush = shapes.resolve(KafkaTargets.SEGMENT_FLUSH);
        // 3.1-3.6 move the recovery point in LocalLog.markFlushed, under the partition lock: a barrier there too
        Resolution markFlushed = shapes.resolve(KafkaTargets.LOCAL_LOG_MARK_FLUSHED);
        Resolution dirFailure = shapes.resolve(KafkaTargets.LOG_DIR_FAILURE);
        String missing = missing(snapshot, roll, flush, segmentFlush, dirFailure, markFlushed);
        if (missing != null) {
            return new RollFlushMitigation(null, "skipped on Kafka " + kafkaVersion + ": " + missing);
        }
        ElementMatcher.Junction<MethodDescription> writeSnapshot = KafkaTargets.ROLL_SNAPSHOT_WRITE.shape();
        RollFlushMitigation m = new RollFlushMitigation(null, null);
        m.transformations.add(snapshot.declaringClass(), MemberSubstitution.relaxed()
            .method(named("force").and(takesArguments(boolean.class)).and(isDeclaredBy(FileChannel.class)))
            .replaceWith(forceSubstitute())
            .on(writeSnapshot));
        m.transformations.add(snapshot.declaringClass(), Advice.to(SnapshotWriteMarkAdvice.class).on(writeSnapshot));
        m.transformations.add(roll.declaringClass(), Advice.to(RollMarkAdvice.class).on(KafkaTargets.ROLL_WITH_OPTION.shape()));
        // the fsync runs at the log flush's first segment flush: inside Kafka's maybeHandleIOException
        m.transformations.add(flush.declaringClass(), Advice.to(flushTarget == KafkaTargets.LOG_FLUSH
            ? LogFlushMarkAdvice.class : FlushUpToBarrierAdvice.class).on(flushTarget.shape()));
        m.transformations.add(segmentFlush.declaringClass(),
            Advice.to(SegmentFlushBarrierAdvice.class).on(KafkaTargets.SEGMENT_FLUSH.shape()));
        if (markFlushed.isResolved()) {
            m.transformations.add(markFlushed.declaringClass(),
                Advice.to(FlushBarrierAdvice.class).on(KafkaTargets.LOCAL_LOG_MARK_FLUSHED.shape()));
        }
        return m;
    }

    /**
     * The first part that is not there: every one but the last must resolve (the flush in the class that rolls);
     * the last, markFlushed, may be absent only where the catalog says this version has none (2.8, 3.0).
     */
    private static String missing(Resolution snapshot, Resolution roll, Resolution flush, Resolution segmentFlush,
                                  Resolution dirFailure, Resolution markFlushed) {
        for (Resolution r : new Resolution[] {snapshot, roll, flush, segmentFlush, dirFailure}) {
            if (!r.isResolved()) {
                return "no " + r.target().describe() + " (" + r.reason() + ")";
            }
        }
        if (!sameClass(flush, roll)) {
            return "no " + flush.target().describe() + " in " + roll.declaringClass() + " (it is in "
                + flush.declaringClass() + ")";
        }
        if (markFlushed.status() == Resolution.Status.MISMATCHED) {
            return "no " + markFlushed.target().describe() + " (" + markFlushed.reason() + ")";
        }
        return null;
    }

    private static boolean sameClass(Resolution a, Resolution b) {
        return a.isResolved() && b.isResolved() && a.declaringClass().equals(b.declaringClass());
    }

    private static java.lang.reflect.Method forceSubstitute() {
        try {
            return RollFlushHooks.class.getMethod("force", FileChannel.class, boolean.class);
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
    }

    boolean applies() {
        return notNeeded == null && skipped == null;
    }

    /** For the start-up line. */
    String describe() {
        if (notNeeded != null) {
            return "roll-flush " + notNeeded;
        }
        if (skipped != null) {
            return "roll-flush " + skipped + "; Kafka's behaviour is unchanged";
        }
        return "roll-flush on (producer-state snapshot fsync moved from the roll to the log's flush-log job)";
    }

    Transformations transformations() {
        return transformations;
    }
}
