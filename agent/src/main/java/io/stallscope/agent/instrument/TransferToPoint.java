package io.stallscope.agent.instrument;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.instrument.advice.TransferToAdvice;
import io.stallscope.agent.kafka.KafkaTarget;
import io.stallscope.agent.kafka.KafkaTargets;

/**
 * The JDK's FileChannelImpl.transferTo: sendfile(2) on the network thread for a plaintext fetch.
 */
public final class TransferToPoint extends InstrumentationPoint {
    @Override
    public int op() {
        return Op.TRANSFER_TO;
    }

    @Override
    public KafkaTarget target() {
        return KafkaTargets.FILE_CHANNEL_TRANSFER_TO;
    }

    @Override
    public Class<?> advice() {
        return TransferToAdvice.class;
    }
}
