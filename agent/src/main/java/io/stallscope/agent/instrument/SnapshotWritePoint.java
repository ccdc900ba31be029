package io.stallscope.agent.instrument;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.instrument.advice.FirstArgAdvice;
import io.stallscope.agent.kafka.KafkaTarget;
import io.stallscope.agent.kafka.KafkaTargets;

/**
 * Writing the producer-state snapshot file; up to 3.6 it includes the fsync, on the request
 * handler, under the partition lock.
 */
public final class SnapshotWritePoint extends InstrumentationPoint {
    @Override
    public int op() {
        return Op.SNAPSHOT_WRITE;
    }

    @Override
    public KafkaTarget target() {
        return KafkaTargets.SNAPSHOT_WRITE;
    }

    @Override
    public Class<?> advice() {
        return FirstArgAdvice.class;
    }
}
