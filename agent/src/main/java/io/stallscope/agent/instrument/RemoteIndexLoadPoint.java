package io.stallscope.agent.instrument;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.instrument.advice.RemoteIndexLoadAdvice;
import io.stallscope.agent.kafka.KafkaTarget;
import io.stallscope.agent.kafka.KafkaTargets;

/**
 * RemoteIndexCache.createCacheEntry: a miss of the remote index cache and the load of the segment's indexes; its
 * subject, the remote segment's metadata, names the partition. The op's count is the cache's misses; its advice also
 * marks the lookup it runs in as a miss for {@link RemoteIndexLookupPoint}.
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
        return RemoteIndexLoadAdvice.class;
    }
}
