package io.stallscope.agent.instrument;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.instrument.advice.QueueSubmitAdvice;
import io.stallscope.agent.kafka.KafkaTarget;
import io.stallscope.agent.kafka.KafkaTargets;

/**
 * A remote read's wait in the remote-log-reader pool's queue. Its start is hooked here, RemoteLogManager.asyncRead (on
 * the fetch's handler); its end is the read's start, which {@link RemoteReadPoint}'s advice reports, so the wait is
 * timed only with both points on; or, for a read cancelled in the queue when its fetch expired, that expiry, which
 * {@link RemoteFetchExpiryPoint}'s advice reports.
 */
public final class RemoteQueueWaitPoint extends InstrumentationPoint {
    @Override
    public int op() {
        return Op.REMOTE_QUEUE_WAIT;
    }

    @Override
    public KafkaTarget target() {
        return KafkaTargets.REMOTE_READ_SUBMIT;
    }

    @Override
    public Class<?> advice() {
        return QueueSubmitAdvice.class;
    }

    @Override
    public String describe() {
        return "RemoteLogManager.asyncRead(...) to RemoteLogReader.call(), or to DelayedRemoteFetch.onExpiration() "
            + "for a read it cancelled in the queue (failed)";
    }
}
