package io.stallscope.agent.instrument;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.instrument.advice.RemapWaitAdvice;
import io.stallscope.agent.kafka.KafkaTarget;
import io.stallscope.agent.kafka.KafkaTargets;

/**
 * AbstractIndex.inRemapReadLock (Kafka 3.9.2, 4.0.2, 4.1.1+): a lookup's wait for the index's remap lock, which a
 * roll's resize takes exclusively to unmap (KAFKA-19390). Its subject, the index, is the resize's too, so a slow
 * wait is paired with the resize of the same file that held it.
 */
public final class IndexRemapWaitPoint extends InstrumentationPoint {
    @Override
    public int op() {
        return Op.INDEX_REMAP_WAIT;
    }

    @Override
    public KafkaTarget target() {
        return KafkaTargets.INDEX_REMAP_READ_LOCK;
    }

    @Override
    public Class<?> advice() {
        return RemapWaitAdvice.class;
    }
}
