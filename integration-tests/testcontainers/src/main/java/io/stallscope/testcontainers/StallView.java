package io.stallscope.testcontainers;

import java.util.List;

/** What the agent measured, queryable by op: one {@link MetricsSnapshot} or the difference of two. */
public interface StallView {

    /** The op's histograms, to narrow by role and topic-partition. */
    default OpQuery op(Op op) {
        return new OpQuery(this, Selection.of(op));
    }

    /** The summed histogram of every series the selection covers (empty if none). */
    OpHistogram histogram(Selection selection);

    /** The agent's slow-op log lines ("slow op=...") from the container, for failure messages. */
    List<String> slowOpLines();

    /** Where the numbers come from, for messages: a container name and time, or two of them. */
    String describe();
}
