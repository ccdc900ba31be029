package io.stallscope.agent.instrument;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.instrument.advice.FirstArgAdvice;
import io.stallscope.agent.kafka.KafkaTarget;
import io.stallscope.agent.kafka.KafkaTargets;

/**
 * RemoteStorageManager.fetchLogSegment, both overloads, as Kafka calls the tiered-storage plugin (through its
 * ClassLoaderAwareRemoteStorageManager): its subject, the remote segment's metadata, names the topic-partition.
 */
public final class RemoteFetchPoint extends InstrumentationPoint {
    @Override
    public int op() {
        return Op.REMOTE_FETCH;
    }

    @Override
    public KafkaTarget target() {
        return KafkaTargets.REMOTE_FETCH_SEGMENT;
    }

    @Override
    public Class<?> advice() {
        return FirstArgAdvice.class;
    }
}
