package io.stallscope.agent.mitigate;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.stallscope.agent.logging.BrokerLog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The segment a roll closed is fsynced before that roll's deferred snapshot: the snapshot's fsync forces the file
 * system's journal, which would make the next segment's name durable before the closed segment's data (a hole after
 * a power cut, measured with roll-flush on 2.8.2 in docs/lab/power-loss.md).
 */
class RolledSegmentSyncTest {
    @Test
    void theClosedSegmentIsTheGreatestBaseBelowTheSnapshotsOffset(@TempDir Path tmp) throws Exception {
        Path log = Files.createDirectories(tmp.resolve("orders-0"));
        for (long base : new long[] {0, 1008, 2016}) {
            Files.createFile(log.resolve(String.format("%020d.log", base)));
            Files.createFile(log.resolve(String.format("%020d.index", base)));
        }
        Files.createFile(log.resolve("00000000000000003000.log.deleted"));
        Files.createFile(log.resolve("leader-epoch-checkpoint"));
        assertThat(RolledSegmentSync.closedBy(snapshotAt(log, 2016))).isEqualTo(log.resolve("00000000000000001008.log").toFile());
        assertThat(RolledSegmentSync.closedBy(snapshotAt(log, 1008))).isEqualTo(log.resolve("00000000000000000000.log").toFile());
        assertThat(RolledSegmentSync.closedBy(snapshotAt(log, 5000))).as("past the last segment: the last one")
            .isEqualTo(log.resolve("00000000000000002016.log").toFile());
        assertThat(RolledSegmentSync.closedBy(snapshotAt(log, 0))).as("nothing below offset 0").isNull();
        assertThat(RolledSegmentSync.closedBy(log.resolve("odd.snapshot").toFile())).as("not Kafka's name").isNull();
        assertThat(RolledSegmentSync.sync(snapshotAt(log, 2016))).isEqualTo(log.resolve("00000000000000001008.log").toFile());
        Files.delete(log.resolve("00000000000000001008.log"));
        assertThat(RolledSegmentSync.sync(snapshotAt(log, 2016))).as("deleted meanwhile: the one below is no longer the closed one's data, "
            + "but syncing it is harmless").isEqualTo(log.resolve("00000000000000000000.log").toFile());
    }

    @Test
    void aDeferredSnapshotIsFsyncedOnlyAfterItsClosedSegment(@TempDir Path tmp) throws Exception {
        Path log = Files.createDirectories(tmp.resolve("orders-0"));
        List<String> order = new ArrayList<>();
        PendingSnapshots[] pending = new PendingSnapshots[1];
        pending[0] = new PendingSnapshots(100, new MitigationMetrics(new SimpleMeterRegistry(), BrokerLog.get()), snapshot -> {
            // still pending here: its own fsync has not run yet
            order.add("segment before " + snapshot.getName() + ", pending " + pending[0].size());
            return RolledSegmentSync.sync(snapshot);
        });
        File at1008 = Files.createFile(log.resolve("00000000000000001008.snapshot")).toFile();
        pending[0].defer(at1008);
        pending[0].flush(log.toFile(), 1008);
        assertThat(order).containsExactly("segment before 00000000000000001008.snapshot, pending 1");
        assertThat(pending[0].size()).isZero();
    }

    private static File snapshotAt(Path log, long offset) {
        return log.resolve(String.format("%020d.snapshot", offset)).toFile();
    }
}
