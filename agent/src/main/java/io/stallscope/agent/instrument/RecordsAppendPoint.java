package io.stallscope.agent.instrument;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.instrument.advice.IntBytesAdvice;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.matcher.ElementMatcher;

import java.util.Arrays;
import java.util.List;

import static net.bytebuddy.matcher.ElementMatchers.nameEndsWith;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.returns;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

/** FileRecords.append(MemoryRecords): the write(2) of a produced batch; moved to record.internal in 4.3. */
public final class RecordsAppendPoint extends InstrumentationPoint {
    @Override
    public int op() {
        return Op.RECORDS_APPEND;
    }

    @Override
    public List<String> types() {
        return Arrays.asList("org.apache.kafka.common.record.FileRecords",
            "org.apache.kafka.common.record.internal.FileRecords");
    }

    @Override
    public ElementMatcher.Junction<MethodDescription> methods() {
        return named("append").and(takesArguments(1)).and(takesArgument(0, nameEndsWith(".MemoryRecords")))
            .and(returns(int.class));
    }

    @Override
    public Class<?> advice() {
        return IntBytesAdvice.class;
    }

    @Override
    public String describe() {
        return "FileRecords.append(MemoryRecords)";
    }
}
