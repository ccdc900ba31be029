package io.stallscope.agent.instrument;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.instrument.advice.RemoteIndexAdvice;
import io.stallscope.agent.kafka.KafkaTarget;
import io.stallscope.agent.kafka.KafkaTargets;

/**
 * RemoteStorageManager.fetchIndex: one index of a remote segment, fetched for RemoteIndexCache (a remote read or,
 * up to 3.9, a ListOffsets on a request handler) or a follower's state; the path names the index.
 */
public final class RemoteFetchIndexPoint extends InstrumentationPoint {
    @Override
    public int op() {
        return Op.REMOTE_FETCH_INDEX;
    }

    @Override
    public KafkaTarget target() {
        return KafkaTargets.REMOTE_FETCH_INDEX;
    }

    @Override
    public Class<?> advice() {
        return RemoteIndexAdvice.class;
    }
}
