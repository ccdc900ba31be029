package io.stallscope.agent.report;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.model.ThreadRole;
import io.stallscope.agent.model.TopicPartition;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SlowOpLogTest {
    @Test
    void aLineCarriesEveryFieldOfTheMeasurement() {
        List<String> lines = new ArrayList<>();
        new SlowOpLog(lines::add, 10).slow(Op.SNAPSHOT_WRITE, 212_503_000L, "data-plane-kafka-request-handler-3",
            ThreadRole.REQUEST_HANDLER, new TopicPartition("orders", 7), -1,
            "/var/lib/kafka/orders-7/00000000000001234567.snapshot", null);
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
                i == 0 ? new IOException("disk") : null);
        }
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).contains("bytes=1024").contains("failed=java.io.IOException");
        assertThat(SlowOpLog.format(Op.RECORDS_APPEND, 1, "h", ThreadRole.OTHER, null, -1, null, null, 7))
            .endsWith("(7 more slow ops not logged: over slow.log.per.minute)");
    }
}
