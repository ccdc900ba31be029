package io.stallscope.agent.instrument;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.instrument.advice.ThisAdvice;
import io.stallscope.agent.kafka.KafkaTarget;
import io.stallscope.agent.kafka.KafkaTargets;

/**
 * LogSegment.flush(): fsync of the segment's log, offset, time and transaction indexes.
 */
public final class SegmentFlushPoint extends InstrumentationPoint {
    @Override
    public int op() {
        return Op.SEGMENT_FLUSH;
    }

    @Override
    public KafkaTarget target() {
        return KafkaTargets.SEGMENT_FLUSH;
    }

    @Override
    public Class<?> advice() {
        return ThisAdvice.class;
    }
}
