package io.stallscope.agent.instrument;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.instrument.advice.ThisAdvice;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.matcher.ElementMatcher;

import java.util.Arrays;
import java.util.List;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

/**
 * LogSegment.read on the fetch path. Only the full overload: (long, int, long|Optional, boolean).
 * 3.7 adds (long, int) and (long, int, long) that delegate to it; advising them too would count a
 * read twice.
 */
public final class SegmentReadPoint extends InstrumentationPoint {
    @Override
    public int op() {
        return Op.SEGMENT_READ;
    }

    @Override
    public List<String> types() {
        return Arrays.asList("kafka.log.LogSegment", OAKSIL + "LogSegment");
    }

    @Override
    public ElementMatcher.Junction<MethodDescription> methods() {
        return named("read").and(takesArguments(4)).and(takesArgument(0, long.class))
            .and(takesArgument(1, int.class)).and(takesArgument(3, boolean.class));
    }

    @Override
    public Class<?> advice() {
        return ThisAdvice.class;
    }

    @Override
    public String describe() {
        return "LogSegment.read(long,int,...,boolean)";
    }
}
