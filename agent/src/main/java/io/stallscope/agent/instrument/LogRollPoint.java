package io.stallscope.agent.instrument;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.instrument.advice.ThisAdvice;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.matcher.ElementMatcher;

import java.util.Arrays;
import java.util.List;

import static net.bytebuddy.matcher.ElementMatchers.isStatic;
import static net.bytebuddy.matcher.ElementMatchers.nameEndsWith;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.returns;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

/**
 * The whole roll, under the partition lock: Log.roll(Option) in 2.8, UnifiedLog.roll(Option) in 3.x
 * and 4.0 (kafka.log), UnifiedLog.roll(Optional) and roll() in 4.1+ (one calls the other: the nesting
 * guard times the outer one). kafka-storage 4.0 also has a static-helper UnifiedLog: instance methods only.
 */
public final class LogRollPoint extends InstrumentationPoint {
    @Override
    public int op() {
        return Op.LOG_ROLL;
    }

    @Override
    public List<String> types() {
        return Arrays.asList("kafka.log.Log", "kafka.log.UnifiedLog", OAKSIL + "UnifiedLog");
    }

    @Override
    public ElementMatcher.Junction<MethodDescription> methods() {
        return named("roll").and(not(isStatic())).and(takesArguments(0).or(takesArguments(1)))
            .and(returns(nameEndsWith(".LogSegment")));
    }

    @Override
    public Class<?> advice() {
        return ThisAdvice.class;
    }

    @Override
    public String describe() {
        return "UnifiedLog.roll";
    }
}
