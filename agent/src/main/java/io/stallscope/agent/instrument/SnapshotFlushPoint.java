package io.stallscope.agent.instrument;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.instrument.advice.FirstArgAdvice;
import io.stallscope.agent.kafka.KafkaTarget;
import io.stallscope.agent.kafka.KafkaTargets;

/**
 * The producer-state snapshot fsync in the scheduler's flush-log job, from 3.7 (KAFKA-15046).
 */
public final class SnapshotFlushPoint extends InstrumentationPoint {
    @Override
    public int op() {
        return Op.SNAPSHOT_FLUSH;
    }

    @Override
    public KafkaTarget target() {
        return KafkaTargets.SNAPSHOT_FLUSH;
    }

    @Override
    public Class<?> advice() {
        return FirstArgAdvice.class;
    }
}
