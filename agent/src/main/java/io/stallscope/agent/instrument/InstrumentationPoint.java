package io.stallscope.agent.instrument;

import io.stallscope.agent.bootstrap.Op;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;

import java.util.List;

/**
 * One instrumented method: where it may live across Kafka (or JDK) versions, the shape it must
 * have, and the advice that times it. Resolution against the class files happens before any class
 * is transformed, the way OpenTelemetry's muzzle checks do: a point whose shape does not match is
 * skipped with its reason, never half-applied.
 */
public abstract class InstrumentationPoint {
    protected static final String OAKSIL = "org.apache.kafka.storage.internals.log.";

    /** The op this point reports as. */
    public abstract int op();

    /** Every fully qualified class name the method has lived in, newest last. */
    public abstract List<String> types();

    /** The method's shape. Synthetic, bridge, abstract and native methods are excluded for every point. */
    public abstract ElementMatcher.Junction<MethodDescription> methods();

    /** The advice class, taking {@code @OpId int}. */
    public abstract Class<?> advice();

    /** What the operator reads in the start-up line, e.g. "LogSegment.flush()". */
    public abstract String describe();

    /** Further checks of a matched type (a field the advice reads); null when it fits. */
    public String verify(TypeDescription type) {
        return null;
    }

    /** Said after the reason when no candidate matched and that is expected in some versions; null if not. */
    public String whenAbsent() {
        return null;
    }

    /** Whether this point lives in the JDK, which is loaded before the agent and needs the bootstrap path. */
    public boolean inJdk() {
        return false;
    }

    public String opName() {
        return Op.name(op());
    }
}
