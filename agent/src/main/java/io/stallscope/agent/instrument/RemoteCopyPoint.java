package io.stallscope.agent.instrument;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.instrument.advice.FirstArgAdvice;
import io.stallscope.agent.kafka.KafkaTarget;
import io.stallscope.agent.kafka.KafkaTargets;

/**
 * RemoteStorageManager.copyLogSegmentData: a rolled segment copied to the remote tier by the remote log manager's
 * threads, which read the local segment (often cold) from the disks the produce path writes to.
 */
public final class RemoteCopyPoint extends InstrumentationPoint {
    @Override
    public int op() {
        return Op.REMOTE_COPY;
    }

    @Override
    public KafkaTarget target() {
        return KafkaTargets.REMOTE_COPY;
    }

    @Override
    public Class<?> advice() {
        return FirstArgAdvice.class;
    }
}
