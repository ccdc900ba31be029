package io.stallscope.agent.mitigate;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.stallscope.agent.logging.BrokerLog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A flush makes durable the deferred snapshots its recovery point relies on (offset at most what it
 * flushes to), and leaves a later roll's snapshot pending for that roll's own flush: on Kafka 3.x the
 * recovery point is marked under the partition lock, where an fsync stalls every producer.
 */
class PendingSnapshotsTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final PendingSnapshots pending = new PendingSnapshots(100, new MitigationMetrics(registry, BrokerLog.get()));

    @Test
    void aFlushFsyncsSnapshotsUpToItsOffsetOnly(@TempDir Path tmp) throws Exception {
        Path log = Files.createDirectories(tmp.resolve("topic-0"));
        File rolledAt100 = snapshot(log, 100);
        File rolledAt200 = snapshot(log, 200);
        assertThat(pending.defer(rolledAt100)).isTrue();
        assertThat(pending.defer(rolledAt200)).isTrue();

        pending.flush(log.toFile(), 150);
        assertThat(pending.size()).as("the roll at 200 waits for its own flush").isEqualTo(1);
        assertThat(flushed()).isEqualTo(1);

        pending.flush(log.toFile(), 200);
        assertThat(pending.size()).isZero();
        assertThat(flushed()).isEqualTo(2);
    }

    @Test
    void otherLogsAndNamesThatAreNoOffset(@TempDir Path tmp) throws Exception {
        Path a = Files.createDirectories(tmp.resolve("a-0"));
        Path b = Files.createDirectories(tmp.resolve("b-0"));
        File inB = snapshot(b, 10);
        File odd = Files.createFile(a.resolve("odd.snapshot")).toFile();
        pending.defer(inB);
        pending.defer(odd);

        pending.flush(a.toFile(), 0);
        assertThat(pending.size()).as("b's snapshot is not a's flush's business; a name that is no offset is fsynced")
            .isEqualTo(1);
        pending.flush(null, Long.MAX_VALUE);
        assertThat(pending.size()).isZero();
        assertThat(PendingSnapshots.offset(new File("00000000000000001234.snapshot"))).isEqualTo(1234);
    }

    private double flushed() {
        return registry.counter(MitigationMetrics.EVENTS, "mitigation", "roll-flush", "event", "flushed").count();
    }

    private static File snapshot(Path dir, long offset) throws Exception {
        return Files.write(dir.resolve(String.format("%020d.snapshot", offset)), new byte[] {1, 2, 3}).toFile();
    }
}
