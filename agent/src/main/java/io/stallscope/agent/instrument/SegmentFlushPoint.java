package io.stallscope.agent.instrument;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.instrument.advice.ThisAdvice;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.matcher.ElementMatcher;

import java.util.Arrays;
import java.util.List;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.returns;
import static net.bytebuddy.matcher.ElementMatchers.takesNoArguments;

/** LogSegment.flush(): fsync of the segment's log, offset, time and transaction indexes. */
public final class SegmentFlushPoint extends InstrumentationPoint {
    @Override
    public int op() {
        return Op.SEGMENT_FLUSH;
    }

    @Override
    public List<String> types() {
        return Arrays.asList("kafka.log.LogSegment", OAKSIL + "LogSegment");
    }

    @Override
    public ElementMatcher.Junction<MethodDescription> methods() {
        return named("flush").and(takesNoArguments()).and(returns(void.class));
    }

    @Override
    public Class<?> advice() {
        return ThisAdvice.class;
    }

    @Override
    public String describe() {
        return "LogSegment.flush()";
    }
}
