package io.stallscope.agent.instrument;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.instrument.advice.ThisAdvice;
import io.stallscope.agent.kafka.KafkaTarget;
import io.stallscope.agent.kafka.KafkaTargets;

/**
 * LogSegment.read on the fetch path, the full overload only (the others delegate to it).
 */
public final class SegmentReadPoint extends InstrumentationPoint {
    @Override
    public int op() {
        return Op.SEGMENT_READ;
    }

    @Override
    public KafkaTarget target() {
        return KafkaTargets.SEGMENT_READ;
    }

    @Override
    public Class<?> advice() {
        return ThisAdvice.class;
    }
}
