package io.stallscope.agent.instrument;

import io.stallscope.agent.kafka.KafkaTarget;
import io.stallscope.agent.model.OpKind;

/**
 * One point: the op it reports as, the catalog entry it hooks, and the advice that times it (or, for a point that
 * only counts, counts it). What the method looks like in each Kafka is the catalog's business
 * ({@code io.stallscope.agent.kafka}).
 */
public abstract class InstrumentationPoint {
    /**
     * The op this point reports as; for a point that is not {@link #timed()}, the op it goes with: that op's
     * {@code ops=} entry switches it on and off, and its advice errors are counted under it.
     */
    public abstract int op();

    /**
     * Whether the point times its op (one per op, in op order). False for a point with a name that is no op's that only
     * counts calls, with a metric of its own ({@link RemoteIndexLookupPoint}), or only ends waits of its op that
     * another point began ({@link RemoteFetchExpiryPoint}).
     */
    public boolean timed() {
        return true;
    }

    /** For a point that is not {@link #timed()}: whether it counts calls (else it ends its op's waits). */
    public boolean counts() {
        return !timed();
    }

    /** The catalog entry: where the method lives and its shape. */
    public abstract KafkaTarget target();

    /** The advice class, taking {@code @OpId int}. */
    public abstract Class<?> advice();

    /** What the operator reads in the start-up line and the docs, e.g. "LogSegment.flush()". */
    public String describe() {
        return target().describe();
    }

    /** Its name in the start-up line: the op's, or a counting point's own. */
    public String opName() {
        return OpKind.name(op());
    }
}
