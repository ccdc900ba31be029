package io.stallscope.agent.instrument;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.instrument.advice.FirstArgLongBytesAdvice;
import io.stallscope.agent.kafka.KafkaTarget;
import io.stallscope.agent.kafka.KafkaTargets;

/**
 * SslTransportLayer.transferFrom: with TLS the network thread cannot use sendfile and reads the
 * segment with FileChannel.read into a buffer instead; a cold read stalls it the same way.
 */
public final class TlsTransferPoint extends InstrumentationPoint {
    @Override
    public int op() {
        return Op.TLS_TRANSFER;
    }

    @Override
    public KafkaTarget target() {
        return KafkaTargets.TLS_TRANSFER_FROM;
    }

    @Override
    public Class<?> advice() {
        return FirstArgLongBytesAdvice.class;
    }
}
