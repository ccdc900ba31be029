package io.stallscope.agent.instrument;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.instrument.advice.ThisAdvice;
import io.stallscope.agent.kafka.KafkaTarget;
import io.stallscope.agent.kafka.KafkaTargets;

/**
 * OffsetIndex.lookup(long) and TimeIndex.lookup(long): the binary search of a memory-mapped index that a fetch's
 * offset translation and a ListOffsets by time make. Its subject, the index, names the file; a lookup that took long
 * while a safepoint waited is what the safepoint's line names (issue 54).
 */
public final class IndexLookupPoint extends InstrumentationPoint {
    @Override
    public int op() {
        return Op.INDEX_LOOKUP;
    }

    @Override
    public KafkaTarget target() {
        return KafkaTargets.INDEX_LOOKUP;
    }

    @Override
    public Class<?> advice() {
        return ThisAdvice.class;
    }
}
