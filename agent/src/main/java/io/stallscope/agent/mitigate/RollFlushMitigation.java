package io.stallscope.agent.mitigate;

import io.stallscope.agent.mitigate.advice.FlushBarrierAdvice;
import io.stallscope.agent.mitigate.advice.FlushUpToBarrierAdvice;
import io.stallscope.agent.mitigate.advice.RollMarkAdvice;
import io.stallscope.agent.mitigate.advice.SnapshotWriteMarkAdvice;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.asm.MemberSubstitution;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.matcher.ElementMatcher;

import java.io.File;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.List;

import static net.bytebuddy.matcher.ElementMatchers.isDeclaredBy;
import static net.bytebuddy.matcher.ElementMatchers.isStatic;
import static net.bytebuddy.matcher.ElementMatchers.nameEndsWith;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.returns;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

/**
 * KAFKA-9693 on Kafka 2.8-3.6: a roll writes the producer-state snapshot and fsyncs it on the request
 * handler under the partition lock. As Kafka 3.7 does (KAFKA-15046), the snapshot is written in the
 * roll without its fsync; the fsync runs when the log is next flushed (the flush-log job the roll
 * schedules, on the scheduler), before that flush moves the recovery point.
 *
 * <p>Woven in: roll marks the thread; inside writeSnapshot the call to FileChannel.force is replaced by
 * {@link RollFlushHooks#force}, which remembers the file instead when the thread is in a roll; the
 * log's flush (and LocalLog.markFlushed) first fsyncs that log's remembered snapshots up to the offset
 * it flushes to, no later ones (markFlushed runs under the partition lock).
 */
final class RollFlushMitigation {
    static final ElementMatcher.Junction<MethodDescription> WRITE_SNAPSHOT =
        nameEndsWith("writeSnapshot").and(takesArguments(2)).and(takesArgument(0, File.class));
    static final ElementMatcher.Junction<MethodDescription> ROLL =
        named("roll").and(not(isStatic())).and(takesArguments(1)).and(returns(nameEndsWith(".LogSegment")));
    static final ElementMatcher.Junction<MethodDescription> FLUSH_28 =
        named("flush").and(not(isStatic())).and(takesArguments(long.class));
    static final ElementMatcher.Junction<MethodDescription> FLUSH_3X =
        named("flush").and(not(isStatic())).and(takesArguments(long.class, boolean.class));
    static final ElementMatcher.Junction<MethodDescription> MARK_FLUSHED =
        named("markFlushed").and(not(isStatic())).and(takesArguments(long.class));
    static final ElementMatcher.Junction<MethodDescription> FLUSH_SNAPSHOT_37 =
        named("flushProducerStateSnapshot").and(takesArguments(Path.class));

    private final String notNeeded;
    private final String skipped;
    private final Transformations transformations = new Transformations();

    private RollFlushMitigation(String notNeeded, String skipped) {
        this.notNeeded = notNeeded;
        this.skipped = skipped;
    }

    static RollFlushMitigation resolve(TypeShapes shapes, String kafkaVersion) {
        if (shapes.declaring(List.of("kafka.log.UnifiedLog", TypeShapes.OAKSIL + "UnifiedLog"), FLUSH_SNAPSHOT_37) != null) {
            return new RollFlushMitigation("not needed on Kafka " + kafkaVersion
                + ": the snapshot fsync already runs in the flush-log job (KAFKA-15046)", null);
        }
        String snapshotType = shapes.declaring(
            List.of("kafka.log.ProducerStateManager$", TypeShapes.OAKSIL + "ProducerStateManager"), WRITE_SNAPSHOT);
        String rollType = shapes.declaring(List.of("kafka.log.Log", "kafka.log.UnifiedLog"), ROLL);
        ElementMatcher.Junction<MethodDescription> flush = "kafka.log.Log".equals(rollType) ? FLUSH_28 : FLUSH_3X;
        String flushType = rollType == null ? null : shapes.declaring(List.of(rollType), flush);
        if (snapshotType == null || rollType == null || flushType == null) {
            return new RollFlushMitigation(null, "skipped: no " + (snapshotType == null ? "ProducerStateManager.writeSnapshot(File, Map)"
                : rollType == null ? "Log/UnifiedLog.roll(Option)" : rollType + ".flush(long...)") + " of the expected shape");
        }
        RollFlushMitigation m = new RollFlushMitigation(null, null);
        m.transformations.add(snapshotType, MemberSubstitution.relaxed()
            .method(named("force").and(takesArguments(boolean.class)).and(isDeclaredBy(FileChannel.class)))
            .replaceWith(forceSubstitute())
            .on(WRITE_SNAPSHOT));
        m.transformations.add(snapshotType, Advice.to(SnapshotWriteMarkAdvice.class).on(WRITE_SNAPSHOT));
        m.transformations.add(rollType, Advice.to(RollMarkAdvice.class).on(ROLL));
        m.transformations.add(rollType, Advice.to(flush == FLUSH_28 ? FlushBarrierAdvice.class
            : FlushUpToBarrierAdvice.class).on(flush));
        String localLog = shapes.declaring(List.of("kafka.log.LocalLog"), MARK_FLUSHED);
        if (localLog != null) {
            m.transformations.add(localLog, Advice.to(FlushBarrierAdvice.class).on(MARK_FLUSHED));
        }
        return m;
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
