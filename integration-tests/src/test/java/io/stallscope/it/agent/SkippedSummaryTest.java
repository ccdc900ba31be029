package io.stallscope.it.agent;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The version matrix's "skipped" cell, from the start-up line's list (which separates its entries with "; "). */
class SkippedSummaryTest {
    @Test
    void everySkippedPointKeepsItsReasonUpToTheColon() {
        // Kafka 2.8.2's start-up line, 2026-11-29
        String skipped = "snapshot_flush (expected before Kafka 3.7: there the snapshot fsync is part of snapshot_write, "
            + "on the roll (no class of [kafka.log.UnifiedLog, org.apache.kafka.storage.internals.log.UnifiedLog] on the "
            + "class path)); index_remap_wait (expected outside Kafka 3.9.2..4.0.0, 4.0.2..4.1.0, 4.1.1..: no remap lock "
            + "(KAFKA-19390 came in 3.9.2, 4.0.2 and 4.1.1): lookups wait for no unmap (no class of "
            + "[org.apache.kafka.storage.internals.log.AbstractIndex] on the class path))";
        assertThat(AgentMatrixContainerIT.skippedSummary(skipped)).isEqualTo("snapshot_flush (expected before Kafka 3.7), "
            + "index_remap_wait (expected outside Kafka 3.9.2..4.0.0, 4.0.2..4.1.0, 4.1.1..)");
        assertThat(AgentMatrixContainerIT.skippedSummary("")).isEqualTo("none");
    }
}
