package io.stallscope.agent.mitigate;

import io.stallscope.agent.mitigate.advice.PrefetchAdvice;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.matcher.ElementMatcher;

import java.util.List;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

/**
 * mitigate=prefetch: the exit of LogSegment.read(long, int, long|Optional, boolean), the one overload
 * every fetch goes through (consumer and follower, any listener), on every Kafka from 2.8.
 */
final class PrefetchMitigation {
    static final ElementMatcher.Junction<MethodDescription> READ = named("read").and(takesArguments(4))
        .and(takesArgument(0, long.class)).and(takesArgument(1, int.class)).and(takesArgument(3, boolean.class));

    private final String description;
    private final Transformations transformations = new Transformations();

    private PrefetchMitigation(String description) {
        this.description = description;
    }

    static PrefetchMitigation resolve(TypeShapes shapes, long minBytes, long maxBytes) {
        String segment = shapes.declaring(List.of("kafka.log.LogSegment", TypeShapes.OAKSIL + "LogSegment"), READ);
        if (segment == null) {
            return new PrefetchMitigation("prefetch skipped: no LogSegment.read(long, int, ..., boolean)");
        }
        PrefetchMitigation m = new PrefetchMitigation("prefetch on (fetch slices of rolled segments from "
            + minBytes + " bytes, at most " + maxBytes + " bytes each, warmed on the request handler)");
        m.transformations.add(segment, Advice.to(PrefetchAdvice.class).on(READ));
        return m;
    }

    boolean applies() {
        return !transformations.byType().isEmpty();
    }

    String describe() {
        return description;
    }

    Transformations transformations() {
        return transformations;
    }
}
