package io.stallscope.agent.instrument;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.instrument.advice.FirstArgAdvice;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.matcher.ElementMatcher;

import java.io.File;
import java.util.Arrays;
import java.util.List;

import static net.bytebuddy.matcher.ElementMatchers.nameEndsWith;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;

/**
 * Writing the producer-state snapshot file: the Scala companion's name-mangled writeSnapshot(File, Map)
 * up to 3.4, a static writeSnapshot(File, Map) in 3.5/3.6 and writeSnapshot(File, Map, boolean sync)
 * from 3.7. Up to 3.6 it includes the fsync, on the request handler, under the partition lock.
 */
public final class SnapshotWritePoint extends InstrumentationPoint {
    @Override
    public int op() {
        return Op.SNAPSHOT_WRITE;
    }

    @Override
    public List<String> types() {
        return Arrays.asList("kafka.log.ProducerStateManager$", OAKSIL + "ProducerStateManager");
    }

    @Override
    public ElementMatcher.Junction<MethodDescription> methods() {
        return nameEndsWith("writeSnapshot").and(takesArgument(0, File.class));
    }

    @Override
    public Class<?> advice() {
        return FirstArgAdvice.class;
    }

    @Override
    public String describe() {
        return "ProducerStateManager.writeSnapshot(File,...)";
    }
}
