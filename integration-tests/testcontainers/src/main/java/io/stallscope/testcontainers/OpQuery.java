package io.stallscope.testcontainers;

import java.time.Duration;

/** One op's measurements in a {@link StallView}, narrowed step by step: {@code view.op(RECORDS_APPEND).role(REQUEST_HANDLER).p999()}. */
public final class OpQuery {
    private final StallView view;
    private final Selection selection;

    OpQuery(StallView view, Selection selection) {
        this.view = view;
        this.selection = selection;
    }

    public OpQuery role(Role role) {
        return new OpQuery(view, selection.role(role));
    }

    /** Needs {@link AgentOptions#topicLabels(boolean) topicLabels(true)}: the agent labels by topic only then. */
    public OpQuery topicPartition(String topic, int partition) {
        return new OpQuery(view, selection.topicPartition(topic, partition));
    }

    public OpHistogram histogram() {
        return view.histogram(selection);
    }

    public long count() {
        return histogram().count();
    }

    public Duration sum() {
        return histogram().sum();
    }

    public Percentile max() {
        return histogram().max();
    }

    public Percentile p50() {
        return histogram().p50();
    }

    public Percentile p99() {
        return histogram().p99();
    }

    public Percentile p999() {
        return histogram().p999();
    }

    public Percentile percentile(double q) {
        return histogram().percentile(q);
    }

    public Selection selection() {
        return selection;
    }

    public StallView view() {
        return view;
    }
}
