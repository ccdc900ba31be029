package io.stallscope.agent.report;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.bootstrap.ThreadState;
import io.stallscope.agent.model.ThreadRole;
import io.stallscope.agent.model.TopicPartition;
import io.stallscope.agent.runtime.HooksOnBootstrap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SlowOpLogTest {
    private static final TopicPartition ORDERS_7 = new TopicPartition("orders", 7);
    private static final String HANDLER = "data-plane-kafka-request-handler-3";

    @BeforeAll
    static void hooksWhereTheAgentPutsThem() {
        HooksOnBootstrap.ensure();
    }

    @Test
    void aLineCarriesEveryFieldOfTheMeasurement() {
        List<String> lines = new ArrayList<>();
        new SlowOpLog(lines::add, 10).slow(Op.SNAPSHOT_WRITE, 212_503_000L, HANDLER,
            ThreadRole.REQUEST_HANDLER, ORDERS_7, -1,
            "/var/lib/kafka/orders-7/00000000000001234567.snapshot", null, new ThreadState());
        assertThat(lines).containsExactly("slow op=snapshot_write duration_ms=212.503"
            + " thread=\"data-plane-kafka-request-handler-3\" role=request_handler topic=orders partition=7"
            + " path=/var/lib/kafka/orders-7/00000000000001234567.snapshot");
    }

    @Test
    void aStormIsCappedAndTheDroppedOnesAreNamedInTheNextLine() {
        List<String> lines = new ArrayList<>();
        SlowOpLog log = new SlowOpLog(lines::add, 3);
        for (int i = 0; i < 10; i++) {
            log.slow(Op.RECORDS_APPEND, 150_000_000L, "h", ThreadRole.REQUEST_HANDLER, null, 1024, null,
                i == 0 ? new IOException("disk") : null, new ThreadState());
        }
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).contains("bytes=1024").contains("failed=java.io.IOException");
        assertThat(SlowOpLog.format(Op.RECORDS_APPEND, 1, "h", ThreadRole.OTHER, null, -1, null, null, null, 7))
            .endsWith("(7 more slow ops not logged: over slow.log.per.minute)");
    }

    @Test
    void nestedSlowOpsOnOneThreadAreOneLineNamingTheInnerOnes() {
        List<String> lines = new ArrayList<>();
        SlowOpLog log = new SlowOpLog(lines::add, 1);
        ThreadState thread = new ThreadState();
        // log_roll > snapshot_take > snapshot_write, as the advice reports them: innermost ends first
        thread.open = 2;
        log.slow(Op.SNAPSHOT_WRITE, 212_503_000L, HANDLER, ThreadRole.REQUEST_HANDLER, ORDERS_7, -1, "/d/1.snapshot",
            null, thread);
        thread.open = 1;
        log.slow(Op.SNAPSHOT_TAKE, 215_000_000L, HANDLER, ThreadRole.REQUEST_HANDLER, ORDERS_7, -1, "/d/1.snapshot",
            null, thread);
        assertThat(lines).isEmpty();
        thread.open = 0;
        log.slow(Op.LOG_ROLL, 230_100_000L, HANDLER, ThreadRole.REQUEST_HANDLER, ORDERS_7, -1, "/d", null, thread);
        assertThat(lines).containsExactly("slow op=log_roll duration_ms=230.100 thread=\"" + HANDLER + "\""
            + " role=request_handler topic=orders partition=7 path=/d"
            + " inner=snapshot_take:215.000ms,snapshot_write:212.503ms");
        assertThat(thread.slowInner).isNull();
        // the whole stall took one line of the budget of 1 a minute: nothing was dropped for it
        log.slow(Op.RECORDS_APPEND, 150_000_000L, "h", ThreadRole.REQUEST_HANDLER, null, 1, null, null, thread);
        assertThat(lines).hasSize(1);
    }

    @Test
    void slowInnerOpsOfAnOuterOpUnderItsThresholdStillGetTheirLine() {
        List<String> lines = new ArrayList<>();
        SlowOpLog log = new SlowOpLog(lines::add, 10);
        ThreadState thread = new ThreadState();
        thread.open = 1;
        log.slow(Op.SNAPSHOT_WRITE, 120_000_000L, HANDLER, ThreadRole.REQUEST_HANDLER, ORDERS_7, -1, null, null, thread);
        log.slow(Op.SEGMENT_FLUSH, 180_000_000L, HANDLER, ThreadRole.REQUEST_HANDLER, ORDERS_7, -1, null, null, thread);
        thread.open = 0;
        log.notSlow(HANDLER, ThreadRole.REQUEST_HANDLER, ORDERS_7, thread);
        assertThat(lines).containsExactly("slow op=segment_flush duration_ms=180.000 thread=\"" + HANDLER + "\""
            + " role=request_handler topic=orders partition=7 inner=snapshot_write:120.000ms");
    }
}
