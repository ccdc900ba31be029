package io.stallscope.agent.instrument;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.instrument.advice.RemoteIndexLookupAdvice;
import io.stallscope.agent.kafka.KafkaTarget;
import io.stallscope.agent.kafka.KafkaTargets;

/**
 * RemoteIndexCache.getIndexEntry: every lookup of the remote index cache, counted as a hit or a miss
 * (stallscope_remote_index_cache_total), not timed: an op on every lookup would need histograms the idle series'
 * budget has no room for. It goes with remote_index_load, whose advice tells it a miss: off with it in ops=.
 */
public final class RemoteIndexLookupPoint extends InstrumentationPoint {
    @Override
    public int op() {
        return Op.REMOTE_INDEX_LOAD;
    }

    @Override
    public boolean timed() {
        return false;
    }

    @Override
    public String opName() {
        return "remote_index_lookup";
    }

    @Override
    public KafkaTarget target() {
        return KafkaTargets.REMOTE_INDEX_LOOKUP;
    }

    @Override
    public Class<?> advice() {
        return RemoteIndexLookupAdvice.class;
    }
}
