package io.stallscope.agent.instrument;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.instrument.advice.ThisAdvice;
import io.stallscope.agent.kafka.KafkaTarget;
import io.stallscope.agent.kafka.KafkaTargets;

/**
 * LogSegment.onBecomeInactiveSegment(): index trims and ftruncate on the produce thread during a roll.
 */
public final class SegmentInactivePoint extends InstrumentationPoint {
    @Override
    public int op() {
        return Op.SEGMENT_INACTIVE;
    }

    @Override
    public KafkaTarget target() {
        return KafkaTargets.SEGMENT_INACTIVE;
    }

    @Override
    public Class<?> advice() {
        return ThisAdvice.class;
    }
}
