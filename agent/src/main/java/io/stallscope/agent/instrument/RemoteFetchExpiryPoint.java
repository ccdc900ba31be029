package io.stallscope.agent.instrument;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.instrument.advice.RemoteFetchExpiryAdvice;
import io.stallscope.agent.kafka.KafkaTarget;
import io.stallscope.agent.kafka.KafkaTargets;

/**
 * DelayedRemoteFetch.onExpiration(): a fetch that gave up at remote.fetch.max.wait.ms cancels its remote reads, and one
 * still queued for the reader pool never runs, so {@link RemoteReadPoint} never ends its wait. This point ends it:
 * remote_queue_wait up to the expiry, on the purgatory's thread, failed ({@code failed=fetch_expired} in its line,
 * counted in stallscope_op_errors_total). It times nothing of its own: it goes with remote_queue_wait (off with it in
 * ops=), and the wait's start is {@link RemoteQueueWaitPoint}'s.
 */
public final class RemoteFetchExpiryPoint extends InstrumentationPoint {
    @Override
    public int op() {
        return Op.REMOTE_QUEUE_WAIT;
    }

    @Override
    public boolean timed() {
        return false;
    }

    @Override
    public boolean counts() {
        return false;
    }

    @Override
    public String opName() {
        return "remote_fetch_expiry";
    }

    @Override
    public KafkaTarget target() {
        return KafkaTargets.REMOTE_FETCH_EXPIRY;
    }

    @Override
    public Class<?> advice() {
        return RemoteFetchExpiryAdvice.class;
    }
}
