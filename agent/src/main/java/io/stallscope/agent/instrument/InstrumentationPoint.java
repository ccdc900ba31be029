package io.stallscope.agent.instrument;

import io.stallscope.agent.kafka.KafkaTarget;
import io.stallscope.agent.model.OpKind;

/**
 * One timing point: the op it reports as, the catalog entry it hooks, and the advice that times it.
 * What the method looks like in each Kafka is the catalog's business ({@code io.stallscope.agent.kafka}).
 */
public abstract class InstrumentationPoint {
    /** The op this point reports as. */
    public abstract int op();

    /** The catalog entry: where the method lives and its shape. */
    public abstract KafkaTarget target();

    /** The advice class, taking {@code @OpId int}. */
    public abstract Class<?> advice();

    /** What the operator reads in the start-up line and the docs, e.g. "LogSegment.flush()". */
    public String describe() {
        return target().describe();
    }

    public String opName() {
        return OpKind.name(op());
    }
}
