package io.stallscope.it.container;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class VersionMatrixTest {

    @Test
    void rowsSortByVersionThenJdkAndMissingCellsSayNotRun() {
        VersionMatrix m = new VersionMatrix(null);
        m.record("4.4.0", "25", "agent at start", "passed");
        m.record("4.4.0", "17", "agent at start", "passed");
        m.record("10.0.0", "17", "agent at start", "FAILED: a|b");
        m.record("2.8.2", "17", "instrumented", "10 of 11");
        String table = m.render();
        assertThat(table.lines().toList()).containsSubsequence(
                "| Kafka | JDK | instrumented | agent at start |",
                "|---|---|---|---|",
                "| 2.8.2 | 17 | 10 of 11 | not run |",
                "| 4.4.0 | 17 | not run | passed |",
                "| 4.4.0 | 25 | not run | passed |",
                "| 10.0.0 | 17 | not run | FAILED: a\\|b |");
    }
}
