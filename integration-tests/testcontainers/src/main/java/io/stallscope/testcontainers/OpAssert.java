package io.stallscope.testcontainers;

import org.assertj.core.api.AbstractAssert;

import java.time.Duration;
import java.util.List;

/** Assertions on one op's histogram, narrowed by role and topic-partition. */
public final class OpAssert extends AbstractAssert<OpAssert, OpQuery> {
    OpAssert(OpQuery actual) {
        super(actual, OpAssert.class);
    }

    public OpAssert role(Role role) {
        return new OpAssert(actual.role(role));
    }

    public OpAssert topicPartition(String topic, int partition) {
        return new OpAssert(actual.topicPartition(topic, partition));
    }

    public PercentileAssert p50() {
        return percentile(0.5);
    }

    public PercentileAssert p99() {
        return percentile(0.99);
    }

    public PercentileAssert p999() {
        return percentile(0.999);
    }

    /** The slowest op, as the buckets bound it. */
    public PercentileAssert max() {
        return percentile(1.0);
    }

    public PercentileAssert percentile(double q) {
        OpHistogram h = actual.histogram();
        return new PercentileAssert(h.percentile(q), evidence(actual, h));
    }

    /** No op of this selection ran at all: e.g. no {@code snapshot_write} on a request handler. */
    public OpAssert hasNoOps() {
        OpHistogram h = actual.histogram();
        if (h.count() != 0) {
            failWithMessage("expected no %s %s, but there were %d%n%s", actual.selection(), where(), h.count(),
                    evidence(actual, h));
        }
        return this;
    }

    /** At least {@code n} ops ran: that the workload reached what the test asserts on. */
    public OpAssert hasCountAtLeast(long n) {
        OpHistogram h = actual.histogram();
        if (h.count() < n) {
            failWithMessage("expected at least %d %s %s, but there were %d%n%s", n, actual.selection(), where(),
                    h.count(), evidence(actual, h));
        }
        return this;
    }

    /**
     * No op took longer than {@code limit}, counted from the first bucket bound at or over it (ops between
     * the limit and that bound are within the bucket error and not counted).
     */
    public OpAssert hasNoneOver(Duration limit) {
        OpHistogram h = actual.histogram();
        long over = h.countOver(limit);
        if (over > 0) {
            failWithMessage("expected no %s over %s %s, but %d took longer than %s (the first bucket bound at or over"
                            + " the limit)%n%s", actual.selection(), Percentile.format(limit), where(), over,
                    Percentile.format(h.boundAtOrOver(limit)), evidence(actual, h));
        }
        return this;
    }

    private String where() {
        return actual.view().describe();
    }

    /** The histogram and the slow-op lines: what a failure shows. */
    static String evidence(OpQuery q, OpHistogram h) {
        StringBuilder sb = new StringBuilder(h.table());
        List<String> lines = q.view().slowOpLines();
        if (lines.isEmpty()) {
            sb.append("no slow-op log lines from the agent in ").append(q.view().describe());
        } else {
            int from = Math.max(0, lines.size() - 30);
            sb.append("slow-op log lines (").append(lines.size()).append(from > 0 ? ", the last 30" : "").append("):\n");
            for (String l : lines.subList(from, lines.size())) {
                sb.append("  ").append(l).append('\n');
            }
        }
        return sb.toString();
    }
}
