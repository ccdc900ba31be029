package io.stallscope.agent.instrument;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.instrument.advice.ThisAdvice;
import io.stallscope.agent.kafka.KafkaTarget;
import io.stallscope.agent.kafka.KafkaTargets;

/**
 * AbstractIndex.resize(int): remaps an offset or time index (and truncates its file). TimeIndex
 * overrides it and calls super.resize under its own lock: both are advised, and the nesting guard
 * in Hooks times only the outer call, so the lock wait counts and nothing counts twice.
 */
public final class IndexResizePoint extends InstrumentationPoint {
    @Override
    public int op() {
        return Op.INDEX_RESIZE;
    }

    @Override
    public KafkaTarget target() {
        return KafkaTargets.INDEX_RESIZE;
    }

    @Override
    public Class<?> advice() {
        return ThisAdvice.class;
    }
}
