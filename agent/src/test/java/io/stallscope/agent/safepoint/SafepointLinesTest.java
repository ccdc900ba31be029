package io.stallscope.agent.safepoint;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SafepointLinesTest {
    @Test
    void theLineSaysSafepointWithTheOperationAndTheThreads() {
        String line = SafepointLines.format(new SafepointSync(16, 0, 212_345_678L, "G1CollectFull", 1, 60), null);
        assertThat(line).startsWith("slow op=safepoint_sync duration_ms=212.346 vm_operation=G1CollectFull safepoint_id=16"
            + " threads=60 running_at_start=1: ").contains("safepoint");
        assertThat(SafepointLines.format(new SafepointSync(2, 0, 1, "unknown", -1, -1), null))
            .doesNotContain("threads=").doesNotContain("running_at_start");
    }

    @Test
    void linesOverThePerMinuteBudgetAreDropped() {
        List<String> lines = new ArrayList<>();
        SafepointLines log = new SafepointLines(lines::add, 2);
        for (int i = 0; i < 5; i++) {
            log.slow(new SafepointSync(i, 0, 200_000_000L, "Deoptimize", 0, 10), null);
        }
        assertThat(lines).hasSize(2).noneMatch(l -> l.contains("not logged"));
    }
}
