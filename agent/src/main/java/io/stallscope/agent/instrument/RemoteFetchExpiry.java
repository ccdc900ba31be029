package io.stallscope.agent.instrument;

import io.stallscope.agent.bootstrap.Hooks;
import io.stallscope.agent.bootstrap.QueuedTasks;
import io.stallscope.agent.kafka.DelayedRemoteFetches;
import io.stallscope.agent.model.CancelledInQueue;

/**
 * {@link RemoteFetchExpiryPoint}'s hook, at the end of DelayedRemoteFetch.onExpiration on the purgatory's timer thread:
 * each of the fetch's reads that Kafka cancelled while it was still queued (its fetchInfo still in {@link QueuedTasks}:
 * a read that had begun left it then) ends its wait here, as remote_queue_wait failed with
 * {@link CancelledInQueue#FETCH_EXPIRED}. Never throws: a failure is counted as the op's advice error.
 */
public final class RemoteFetchExpiry {
    private RemoteFetchExpiry() {
    }

    public static void expired(int op, Object delayedRemoteFetch) {
        if (delayedRemoteFetch == null || Hooks.sink() == null) {
            return;
        }
        try {
            for (Object fetchInfo : DelayedRemoteFetches.cancelledReads(delayedRemoteFetch)) {
                QueuedTasks.cancelled(op, fetchInfo, CancelledInQueue.FETCH_EXPIRED);
            }
        } catch (Throwable t) {
            Hooks.failed(op, t);
        }
    }
}
