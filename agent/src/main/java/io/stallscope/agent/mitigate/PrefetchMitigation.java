package io.stallscope.agent.mitigate;

import io.stallscope.agent.kafka.KafkaTargets;
import io.stallscope.agent.kafka.Resolution;
import io.stallscope.agent.kafka.TargetResolver;
import io.stallscope.agent.mitigate.advice.FetchCompletionMarkAdvice;
import io.stallscope.agent.mitigate.advice.FetchReadAdvice;
import net.bytebuddy.asm.Advice;

/**
 * mitigate=prefetch: the exit of ReplicaManager's read of a fetch's partitions, outside every partition
 * lock and before the response is queued (consumer and follower, any listener), on every Kafka from 2.8;
 * and DelayedFetch.onComplete, which marks the thread that completes a fetch from the purgatory.
 */
final class PrefetchMitigation extends WovenMitigation {
    private PrefetchMitigation(String description) {
        super(description);
    }

    static PrefetchMitigation resolve(TargetResolver shapes, String bounds) {
        Resolution read = shapes.resolve(KafkaTargets.FETCH_READ);
        if (!read.isResolved()) {
            return new PrefetchMitigation("prefetch skipped: no " + KafkaTargets.FETCH_READ.describe()
                + " (" + read.reason() + ")");
        }
        Resolution completion = shapes.resolve(KafkaTargets.FETCH_PURGATORY_COMPLETE);
        if (!completion.isResolved()) {
            // without it a fetch completed from the purgatory would be warmed on whichever thread completes it
            return new PrefetchMitigation("prefetch skipped: no " + KafkaTargets.FETCH_PURGATORY_COMPLETE.describe()
                + " (" + completion.reason() + ")");
        }
        PrefetchMitigation m = new PrefetchMitigation("prefetch on (" + bounds
            + "; mapped and loaded on the request handler after the fetch's read, outside the partition locks)");
        m.transformations.add(read.declaringClass(), Advice.to(FetchReadAdvice.class).on(KafkaTargets.FETCH_READ.advisable()));
        m.transformations.add(completion.declaringClass(), Advice.to(FetchCompletionMarkAdvice.class)
            .on(KafkaTargets.FETCH_PURGATORY_COMPLETE.advisable()));
        return m;
    }

    static PrefetchMitigation skipped(String why) {
        return new PrefetchMitigation("prefetch skipped: " + why);
    }
}
