package io.stallscope.agent.instrument;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.instrument.advice.FirstArgAdvice;
import io.stallscope.agent.kafka.KafkaTarget;
import io.stallscope.agent.kafka.KafkaTargets;

/**
 * RemoteStorageManager.deleteLogSegmentData: a remote segment deleted (retention, a deleted topic).
 */
public final class RemoteDeletePoint extends InstrumentationPoint {
    @Override
    public int op() {
        return Op.REMOTE_DELETE;
    }

    @Override
    public KafkaTarget target() {
        return KafkaTargets.REMOTE_DELETE;
    }

    @Override
    public Class<?> advice() {
        return FirstArgAdvice.class;
    }
}
