package io.stallscope.agent.instrument;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.instrument.advice.FirstArgAdvice;
import io.stallscope.agent.kafka.KafkaTarget;
import io.stallscope.agent.kafka.KafkaTargets;

/**
 * RemoteIndexCache.createCacheEntry: a miss of the remote index cache and the load of the segment's indexes; its
 * subject, the remote segment's metadata, names the partition. The op's count is the cache's misses.
 */
public final class RemoteIndexLoadPoint extends InstrumentationPoint {
    @Override
    public int op() {
        return Op.REMOTE_INDEX_LOAD;
    }

    @Override
    public KafkaTarget target() {
        return KafkaTargets.REMOTE_INDEX_LOAD;
    }

    @Override
    public Class<?> advice() {
        return FirstArgAdvice.class;
    }
}
