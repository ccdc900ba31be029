package io.stallscope.agent.instrument;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.instrument.advice.ThisAdvice;
import io.stallscope.agent.kafka.KafkaTarget;
import io.stallscope.agent.kafka.KafkaTargets;

/**
 * The whole append under the log's lock. Its time minus the ops inside it (records_append, a roll) is what the
 * handler spent waiting for the lock, which no other op sees: the victims of a roll's fsync (KAFKA-9693).
 */
public final class LogAppendPoint extends InstrumentationPoint {
    @Override
    public int op() {
        return Op.LOG_APPEND;
    }

    @Override
    public KafkaTarget target() {
        return KafkaTargets.LOG_APPEND;
    }

    @Override
    public Class<?> advice() {
        return ThisAdvice.class;
    }
}
