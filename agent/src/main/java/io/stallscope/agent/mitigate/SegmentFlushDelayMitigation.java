package io.stallscope.agent.mitigate;

import io.stallscope.agent.mitigate.advice.ScheduleDelayAdvice;
import io.stallscope.agent.mitigate.advice.ScheduleDelayWithUnitAdvice;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.matcher.ElementMatcher;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

/**
 * mitigate.segment.flush.delay: every roll schedules a flush of the rolled segment right away, and its
 * fsync competes with the appends that follow. Deferred by a bounded delay, the kernel's writeback has
 * usually written the pages by then and the fsync finds little to do. The flush is never dropped.
 */
final class SegmentFlushDelayMitigation {
    static final ElementMatcher.Junction<MethodDescription> SCHEDULE_MS = named("schedule").and(takesArguments(4))
        .and(takesArgument(0, String.class)).and(takesArgument(2, long.class)).and(takesArgument(3, long.class));
    static final ElementMatcher.Junction<MethodDescription> SCHEDULE_UNIT = named("schedule").and(takesArguments(5))
        .and(takesArgument(0, String.class)).and(takesArgument(2, long.class)).and(takesArgument(3, long.class))
        .and(takesArgument(4, TimeUnit.class));

    private final String description;
    private final Transformations transformations = new Transformations();

    private SegmentFlushDelayMitigation(String description) {
        this.description = description;
    }

    static SegmentFlushDelayMitigation resolve(TypeShapes shapes, long delayNanos) {
        String delay = "segment-flush-delay " + (delayNanos / 1_000_000) + " ms";
        String modern = shapes.declaring(List.of("org.apache.kafka.server.util.KafkaScheduler"), SCHEDULE_MS);
        String scala = shapes.declaring(List.of("kafka.utils.KafkaScheduler"), SCHEDULE_UNIT);
        if (modern == null && scala == null) {
            return new SegmentFlushDelayMitigation(delay + " skipped: no KafkaScheduler.schedule of the expected shape");
        }
        SegmentFlushDelayMitigation m = new SegmentFlushDelayMitigation(delay + " on (the flush-log job after each roll)");
        if (modern != null) {
            m.transformations.add(modern, Advice.to(ScheduleDelayAdvice.class).on(SCHEDULE_MS));
        }
        if (scala != null) {
            m.transformations.add(scala, Advice.to(ScheduleDelayWithUnitAdvice.class).on(SCHEDULE_UNIT));
        }
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
