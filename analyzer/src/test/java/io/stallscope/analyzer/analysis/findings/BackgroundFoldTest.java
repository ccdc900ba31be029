package io.stallscope.analyzer.analysis.findings;

import io.stallscope.analyzer.analysis.Finding;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The JSON of a folded finding is the same from one run to the next (diff-reports compares reports byte for byte). */
class BackgroundFoldTest {
    @Test
    void aFoldedEntryKeepsItsKeysInOrder() {
        Finding f = new Finding(Finding.SLOW_OP, "segment_flush 1233.9 ms on kafka-scheduler-9", List.of("kafka-scheduler-9"), List.of(), 1);
        assertThat(BackgroundFold.foldedEntry(f).keySet()).containsExactly("kind", "summary");
        assertThat(BackgroundFold.foldedEntry(f).values()).containsExactly(Finding.SLOW_OP, "segment_flush 1233.9 ms on kafka-scheduler-9");
    }
}
