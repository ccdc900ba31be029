package io.stallscope.agent.instrument;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.instrument.advice.ThisAdvice;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.matcher.ElementMatcher;

import java.util.Arrays;
import java.util.List;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.returns;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

/**
 * AbstractIndex.resize(int): remaps an offset or time index (and truncates its file). TimeIndex
 * overrides it and calls super.resize under its own lock: both are advised, and the nesting guard
 * in Hooks times only the outer call, so the lock wait counts and nothing counts twice.
 */
public final class IndexResizePoint extends InstrumentationPoint {
    @Override
    public int op() {
        return Op.INDEX_RESIZE;
    }

    @Override
    public List<String> types() {
        return Arrays.asList("kafka.log.AbstractIndex", "kafka.log.TimeIndex", "kafka.log.OffsetIndex",
            OAKSIL + "AbstractIndex", OAKSIL + "TimeIndex", OAKSIL + "OffsetIndex");
    }

    @Override
    public ElementMatcher.Junction<MethodDescription> methods() {
        return named("resize").and(takesArguments(int.class)).and(returns(boolean.class));
    }

    @Override
    public Class<?> advice() {
        return ThisAdvice.class;
    }

    @Override
    public String describe() {
        return "AbstractIndex.resize(int)";
    }
}
