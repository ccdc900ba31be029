package io.stallscope.agent.instrument;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.instrument.advice.ThisAdvice;
import io.stallscope.agent.kafka.KafkaTarget;
import io.stallscope.agent.kafka.KafkaTargets;

/**
 * ProducerStateManager.takeSnapshot on roll (3.7+ has two, one calling the other: the nesting
 * guard times the outer call).
 */
public final class SnapshotTakePoint extends InstrumentationPoint {
    @Override
    public int op() {
        return Op.SNAPSHOT_TAKE;
    }

    @Override
    public KafkaTarget target() {
        return KafkaTargets.SNAPSHOT_TAKE;
    }

    @Override
    public Class<?> advice() {
        return ThisAdvice.class;
    }
}
