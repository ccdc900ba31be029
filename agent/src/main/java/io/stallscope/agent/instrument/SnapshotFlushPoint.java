package io.stallscope.agent.instrument;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.instrument.advice.FirstArgAdvice;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.matcher.ElementMatcher;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

/**
 * UnifiedLog.flushProducerStateSnapshot(Path): from 3.7 (KAFKA-15046) the snapshot fsync moved out
 * of the roll into the scheduler's flush-log job. Up to 3.6 there is no such method: the fsync is
 * part of snapshot_write.
 */
public final class SnapshotFlushPoint extends InstrumentationPoint {
    @Override
    public int op() {
        return Op.SNAPSHOT_FLUSH;
    }

    @Override
    public List<String> types() {
        return Arrays.asList("kafka.log.UnifiedLog", OAKSIL + "UnifiedLog");
    }

    @Override
    public ElementMatcher.Junction<MethodDescription> methods() {
        return named("flushProducerStateSnapshot").and(takesArguments(Path.class));
    }

    @Override
    public Class<?> advice() {
        return FirstArgAdvice.class;
    }

    @Override
    public String whenAbsent() {
        return "expected before Kafka 3.7: there the snapshot fsync is part of snapshot_write, on the roll";
    }

    @Override
    public String describe() {
        return "UnifiedLog.flushProducerStateSnapshot(Path)";
    }
}
