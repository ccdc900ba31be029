package io.stallscope.agent.safepoint;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SafepointJoinTest {
    private final List<SafepointSync> out = new ArrayList<>();
    private final SafepointJoin join = new SafepointJoin(out::add);

    @Test
    void aSafepointIsPassedOnWhenItsSyncAndItsOperationAreKnownInEitherOrder() {
        join.begin(7, 60);
        join.synchronization(7, 1_000L, 212_000_000L, 1);
        assertThat(out).isEmpty();
        join.operation(7, "G1CollectFull");
        join.operation(8, "Deoptimize");
        join.synchronization(8, 2_000L, 50_000L, 0);

        assertThat(out).hasSize(2);
        SafepointSync first = out.get(0);
        assertThat(first.safepointId).isEqualTo(7);
        assertThat(first.operation()).isEqualTo("G1CollectFull");
        assertThat(first.syncNanos()).isEqualTo(212_000_000L);
        assertThat(first.totalThreads).isEqualTo(60);
        assertThat(first.initialRunning).isEqualTo(1);
        assertThat(out.get(1).operation()).isEqualTo("Deoptimize");
        assertThat(out.get(1).totalThreads).isEqualTo(-1);
    }

    @Test
    void aSecondOperationInOneSafepointIsNotASecondSafepoint() {
        join.synchronization(3, 0, 10, 0);
        join.operation(3, "G1CollectForAllocation");
        join.operation(3, "Cleanup");
        assertThat(out).singleElement().extracting(SafepointSync::operation).isEqualTo("G1CollectForAllocation");
    }

    @Test
    void aSyncWhoseOperationNeverComesGoesOutAsUnknownAndNothingPilesUp() {
        join.synchronization(1, 0, 99, 0);
        for (long id = 2; id <= SafepointJoin.PENDING + 1; id++) {
            join.begin(id, 10);
        }
        assertThat(out).singleElement().satisfies(s -> {
            assertThat(s.safepointId).isEqualTo(1);
            assertThat(s.operation()).isEqualTo("unknown");
        });
        // begins without a sync are dropped when they age out, never reported
        for (long id = 100; id < 100 + 3L * SafepointJoin.PENDING; id++) {
            join.begin(id, 10);
        }
        assertThat(out).hasSize(1);
    }
}
