package io.stallscope.analyzer.analysis.findings;

import io.stallscope.analyzer.analysis.Options;
import io.stallscope.analyzer.analysis.stacks.IoOp;
import io.stallscope.analyzer.analysis.waits.Holder;
import io.stallscope.analyzer.analysis.waits.Wait;
import io.stallscope.analyzer.model.Span;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent's log_append span wraps a whole append under the log's lock; its own time is a wait for that lock. A
 * wait for the lock is anchored on the op inside it that held the lock (KAFKA-9693: the roll), never on the wrapper.
 */
class SpanStallsLogAppendTest {
    private static final long MS = 1_000_000L;

    private static Span span(String op, int thread, long startMs, long endMs) {
        return new Span("stallscope.X", startMs * MS, endMs * MS, thread, op, "request_handler", "orders", 0, -1,
                "/d/orders-0", false);
    }

    @Test
    void aWaitForTheLogsLockIsAnchoredOnTheRollInsideTheAppendNotOnTheAppend() {
        SpanStalls stalls = new SpanStalls(List.of(
                span("log_append", 1, 0, 300),
                span("log_roll", 1, 10, 290),
                span("log_append", 2, 20, 310)), Options.defaults());
        Wait w = new Wait(0, 2, 20 * MS, 290 * MS, "lock", "lock", "monitor", "kafka.log.UnifiedLog.append", "append",
                -1, true, 1);
        w.holder = new Holder(1, Holder.RECORDED, 1.0, -1, IoOp.FSYNC);
        stalls.add(w);

        assertThat(stalls.stalls()).extracting(s -> s.span.opName()).containsExactly("log_roll");
        assertThat(stalls.stalls().get(0).waitNanos).isEqualTo(270 * MS);
    }
}
