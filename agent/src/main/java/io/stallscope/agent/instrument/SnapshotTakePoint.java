package io.stallscope.agent.instrument;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.instrument.advice.ThisAdvice;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.matcher.ElementMatcher;

import java.util.Arrays;
import java.util.List;

import static net.bytebuddy.matcher.ElementMatchers.isStatic;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.not;

/**
 * ProducerStateManager.takeSnapshot on roll: takeSnapshot() up to 3.6, plus takeSnapshot(boolean)
 * from 3.7 (the no-arg one delegates; the nesting guard times the outer call).
 */
public final class SnapshotTakePoint extends InstrumentationPoint {
    @Override
    public int op() {
        return Op.SNAPSHOT_TAKE;
    }

    @Override
    public List<String> types() {
        return Arrays.asList("kafka.log.ProducerStateManager", OAKSIL + "ProducerStateManager");
    }

    @Override
    public ElementMatcher.Junction<MethodDescription> methods() {
        return named("takeSnapshot").and(not(isStatic()));
    }

    @Override
    public Class<?> advice() {
        return ThisAdvice.class;
    }

    @Override
    public String describe() {
        return "ProducerStateManager.takeSnapshot";
    }
}
