package io.stallscope.agent.mitigate;

import io.stallscope.agent.kafka.KafkaTargets;
import io.stallscope.agent.kafka.Resolution;
import io.stallscope.agent.kafka.TargetResolver;
import io.stallscope.agent.mitigate.advice.IndexWarmAdvice;
import net.bytebuddy.asm.Advice;

/** mitigate=index-warm: the entry of every offset and time index lookup, on every Kafka from 2.8. */
final class IndexWarmMitigation extends WovenMitigation {
    private IndexWarmMitigation(String description) {
        super(description);
    }

    static IndexWarmMitigation resolve(TargetResolver shapes, String bounds) {
        Resolution lookup = shapes.resolve(KafkaTargets.INDEX_LOOKUP);
        if (!lookup.isResolved()) {
            return skipped("no " + KafkaTargets.INDEX_LOOKUP.describe() + " (" + lookup.reason() + ")");
        }
        IndexWarmMitigation m = new IndexWarmMitigation("index-warm on (" + bounds
            + "; madvise and mincore, the lookup parked while its index comes in)");
        for (String type : lookup.methodsByClass().keySet()) {
            m.transformations.add(type, Advice.to(IndexWarmAdvice.class).on(KafkaTargets.INDEX_LOOKUP.advisable()));
        }
        return m;
    }

    static IndexWarmMitigation skipped(String why) {
        return new IndexWarmMitigation("index-warm skipped: " + why);
    }
}
