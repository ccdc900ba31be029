package io.stallscope.agent.runtime;

import io.stallscope.agent.bootstrap.Hooks;
import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.bootstrap.OpSink;
import io.stallscope.agent.bootstrap.ThreadState;
import io.stallscope.agent.model.ThreadRole;
import io.stallscope.agent.report.SlowOpLog;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The hooks tell the sink whether an op ended inside another one, so a nested stall is one slow-op line. */
class HooksNestingTest extends UsesHooks {
    private final List<String> lines = new ArrayList<>();
    private final SlowOpLog slowLog = new SlowOpLog(lines::add, 60);

    @Test
    void aRollContainingTheSnapshotIsOneLineNamingTheInnerOps() {
        List<Integer> openAtEnd = new ArrayList<>();
        Hooks.install(SlowLogSink.of(slowLog, openAtEnd));
        long roll = Hooks.enter(Op.LOG_ROLL);
        long take = Hooks.enter(Op.SNAPSHOT_TAKE);
        long write = Hooks.enter(Op.SNAPSHOT_WRITE);
        long rollAgain = Hooks.enter(Op.LOG_ROLL); // roll() calling roll(Optional): not timed twice
        Hooks.exit(Op.LOG_ROLL, rollAgain, null, -1, null);
        Hooks.exit(Op.SNAPSHOT_WRITE, write, null, -1, null);
        Hooks.exit(Op.SNAPSHOT_TAKE, take, null, -1, null);
        assertThat(lines).isEmpty();
        Hooks.exit(Op.LOG_ROLL, roll, null, -1, null);

        assertThat(openAtEnd).containsExactly(2, 1, 0);
        assertThat(lines).hasSize(1);
        assertThat(lines.get(0)).startsWith("slow op=log_roll ")
            .matches(".* inner=snapshot_take:[0-9.]+ms,snapshot_write:[0-9.]+ms$");

        // and the next op on the thread is on its own again
        Hooks.exit(Op.RECORDS_APPEND, Hooks.enter(Op.RECORDS_APPEND), null, 1, null);
        assertThat(lines).hasSize(2);
        assertThat(lines.get(1)).startsWith("slow op=records_append ").doesNotContain("inner=");
    }
}
