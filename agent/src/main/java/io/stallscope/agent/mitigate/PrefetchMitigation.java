package io.stallscope.agent.mitigate;

import io.stallscope.agent.kafka.KafkaTargets;
import io.stallscope.agent.kafka.Resolution;
import io.stallscope.agent.kafka.TargetResolver;
import io.stallscope.agent.mitigate.advice.PrefetchAdvice;
import net.bytebuddy.asm.Advice;

/**
 * mitigate=prefetch: the exit of LogSegment.read's full overload, the one every fetch goes through
 * (consumer and follower, any listener), on every Kafka from 2.8.
 */
final class PrefetchMitigation {
    private final String description;
    private final Transformations transformations = new Transformations();

    private PrefetchMitigation(String description) {
        this.description = description;
    }

    static PrefetchMitigation resolve(TargetResolver shapes, long minBytes, long maxBytes) {
        Resolution read = shapes.resolve(KafkaTargets.SEGMENT_READ);
        if (!read.isResolved()) {
            return new PrefetchMitigation("prefetch skipped: no " + KafkaTargets.SEGMENT_READ.describe()
                + " (" + read.reason() + ")");
        }
        PrefetchMitigation m = new PrefetchMitigation("prefetch on (fetch slices of rolled segments from "
            + minBytes + " bytes, at most " + maxBytes + " bytes each, warmed on the request handler)");
        m.transformations.add(read.declaringClass(), Advice.to(PrefetchAdvice.class).on(KafkaTargets.SEGMENT_READ.shape()));
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
