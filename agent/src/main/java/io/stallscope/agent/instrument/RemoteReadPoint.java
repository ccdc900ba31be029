package io.stallscope.agent.instrument;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.instrument.advice.RemoteReadAdvice;
import io.stallscope.agent.kafka.KafkaTarget;
import io.stallscope.agent.kafka.KafkaTargets;

/**
 * RemoteLogReader.call(): a read from the remote tier on the remote-log-reader pool (the plugin's remote_fetch and
 * RemoteIndexCache's loads inside); its advice also ends the read's {@link RemoteQueueWaitPoint} wait.
 */
public final class RemoteReadPoint extends InstrumentationPoint {
    @Override
    public int op() {
        return Op.REMOTE_READ;
    }

    @Override
    public KafkaTarget target() {
        return KafkaTargets.REMOTE_READ;
    }

    @Override
    public Class<?> advice() {
        return RemoteReadAdvice.class;
    }
}
