package io.stallscope.agent.instrument;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.instrument.advice.IntBytesAdvice;
import io.stallscope.agent.kafka.KafkaTarget;
import io.stallscope.agent.kafka.KafkaTargets;

/**
 * FileRecords.append(MemoryRecords): the write(2) of a produced batch.
 */
public final class RecordsAppendPoint extends InstrumentationPoint {
    @Override
    public int op() {
        return Op.RECORDS_APPEND;
    }

    @Override
    public KafkaTarget target() {
        return KafkaTargets.RECORDS_APPEND;
    }

    @Override
    public Class<?> advice() {
        return IntBytesAdvice.class;
    }
}
