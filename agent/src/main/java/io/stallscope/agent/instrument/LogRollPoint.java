package io.stallscope.agent.instrument;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.instrument.advice.ThisAdvice;
import io.stallscope.agent.kafka.KafkaTarget;
import io.stallscope.agent.kafka.KafkaTargets;

/**
 * The whole roll, under the partition lock (4.1+ has two roll methods, one calling the other: the
 * nesting guard times the outer one).
 */
public final class LogRollPoint extends InstrumentationPoint {
    @Override
    public int op() {
        return Op.LOG_ROLL;
    }

    @Override
    public KafkaTarget target() {
        return KafkaTargets.LOG_ROLL;
    }

    @Override
    public Class<?> advice() {
        return ThisAdvice.class;
    }
}
