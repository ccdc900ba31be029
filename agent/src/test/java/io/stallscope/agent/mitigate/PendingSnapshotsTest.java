package io.stallscope.agent.mitigate;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.stallscope.agent.logging.BrokerLog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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

    @Test
    void detachSyncsEveryHealthySnapshotPastAFailureAndNoRollDefersAfterIt(@TempDir Path tmp) throws Exception {
        Path log = Files.createDirectories(tmp.resolve("topic-0"));
        // a symlink to itself: open() fails with ELOOP, an IOException that is not "no such file"
        File broken = Files.createSymbolicLink(log.resolve(String.format("%020d.snapshot", 50)),
            Path.of(String.format("%020d.snapshot", 50))).toFile();
        for (int i = 1; i <= 8; i++) {
            pending.defer(snapshot(log, i * 100L));
        }
        pending.defer(broken);
        assertThat(pending.size()).isEqualTo(9);

        pending.close();
        assertThat(pending.defer(snapshot(log, 5000))).as("after the final sync a roll fsyncs inline").isFalse();
        List<?> failures = pending.flushAll();

        assertThat(failures).hasSize(1);
        assertThat(failures.get(0).toString()).contains(broken.getName());
        assertThat(flushed()).as("every healthy one, whatever the map's order").isEqualTo(8);
        assertThat(pending.size()).isZero();
    }

    @Test
    void aFailedFsyncStaysFailedForItsLog(@TempDir Path tmp) throws Exception {
        Path log = Files.createDirectories(tmp.resolve("topic-0"));
        Path link = log.resolve(String.format("%020d.snapshot", 50));
        File broken = Files.createSymbolicLink(link, link.getFileName()).toFile();
        pending.defer(broken);

        assertThatThrownBy(() -> pending.flush(log.toFile(), 100)).isInstanceOf(IOException.class);
        // the file is fine again (on Linux a new descriptor's fsync after a writeback error usually returns 0)
        Files.delete(link);
        Files.write(link, new byte[] {1});
        assertThatThrownBy(() -> pending.flush(log.toFile(), 200))
            .as("the recovery point must never pass a snapshot whose fsync failed").isInstanceOf(IOException.class);
        pending.flush(Files.createDirectories(tmp.resolve("other-0")).toFile(), 200); // other logs go on
        assertThat(pending.flushAll()).hasSize(1);
    }

    @Test
    void aSnapshotFollowsItsLogsRename(@TempDir Path tmp) throws Exception {
        Path future = Files.createDirectories(tmp.resolve("topic-0.abc-future"));
        RenamedLog log = new RenamedLog(future.toFile());
        assertThat(pending.defer(snapshot(future, 100), log)).isTrue();

        Path current = tmp.resolve("topic-0");
        Files.move(future, current); // what Kafka's renameDir does on the promotion of a -future log
        log.dir = current.toFile();

        pending.flush(current.toFile(), 100);
        assertThat(pending.size()).as("the pending set empties").isZero();
        assertThat(registry.counter(MitigationMetrics.EVENTS, "mitigation", "roll-flush", "event", "flushed_renamed")
            .count()).as("synced at its new path, not counted as vanished").isEqualTo(1);
    }

    /**
     * Kafka's renameDir (2.8 Log, 3.x UnifiedLog -> LocalLog) moves the directory, fsyncs the parent and only then
     * updates dir(), all under the log's lock. A flush of that log inside that window must not count the
     * snapshot as vanished and drop it unsynced: it is there, under the new name.
     */
    @Test
    void aFlushDuringARenameInFlightSyncsTheSnapshotAtItsNewPath(@TempDir Path tmp) throws Exception {
        Path future = Files.createDirectories(tmp.resolve("topic-0.abc-future"));
        KafkaOrderLog log = new KafkaOrderLog(future.toFile());
        assertThat(pending.defer(snapshot(future, 100), log)).isTrue();

        CountDownLatch moved = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Path current = tmp.resolve("topic-0");
        Thread renamer = new Thread(() -> log.renameDir(current, () -> {
            moved.countDown();
            await(release);
        }), "renameDir");
        renamer.start();
        assertThat(moved.await(10, TimeUnit.SECONDS)).isTrue();

        // the log's flush-log job, its dir read before the rename completes
        AtomicReference<Throwable> flushFailed = new AtomicReference<>();
        Thread flusher = new Thread(() -> {
            try {
                pending.flush(future.toFile(), 100);
            } catch (Throwable t) {
                flushFailed.set(t);
            }
        }, "flush-log");
        flusher.start();
        // it either finishes (finding nothing) or waits for the rename to complete under the log's lock
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (flusher.isAlive() && flusher.getState() != Thread.State.BLOCKED) {
            assertThat(System.nanoTime()).as("the flush neither finished nor waited for the log's lock").isLessThan(deadline);
            Thread.onSpinWait();
        }
        release.countDown();
        flusher.join(10_000);
        renamer.join(10_000);

        assertThat(flushFailed.get()).isNull();
        assertThat(event("vanished")).as("not dropped as vanished: it was renamed, not deleted").isZero();
        assertThat(event("flushed_renamed")).as("synced at its new path").isEqualTo(1);
        assertThat(pending.size()).isZero();
    }

    /** Dropped unsynced only when provably gone: absent from the log's dir read under its lock. */
    @Test
    void aSnapshotDeletedWithItsLogIsGoneAndOneThatCannotBeFoundStaysPending(@TempDir Path tmp) throws Exception {
        Path a = Files.createDirectories(tmp.resolve("a-0"));
        File deleted = snapshot(a, 100);
        pending.defer(deleted, new KafkaOrderLog(a.toFile()));
        Files.delete(deleted.toPath());
        pending.flush(a.toFile(), 100);
        assertThat(event("vanished")).as("absent from its log's dir, read under the lock").isEqualTo(1);

        // a log without Kafka's lock: where its file went cannot be proven, so it is not dropped
        Path b = Files.createDirectories(tmp.resolve("b-0"));
        File moved = snapshot(b, 100);
        RenamedLog unlocked = new RenamedLog(b.toFile());
        pending.defer(moved, unlocked);
        Files.move(b, tmp.resolve("b-0.x-future"));
        pending.flush(b.toFile(), 100);
        assertThat(event("vanished")).isEqualTo(1);
        assertThat(pending.size()).as("kept pending").isEqualTo(1);
        assertThat(pending.flushAll()).as("and reported at detach").hasSize(1);
    }

    /** What Kafka's Log/UnifiedLog does on a rename, in its order: move, then update dir(), under its lock. */
    public static final class KafkaOrderLog {
        private final Object lock = new Object();
        private volatile File dir;

        KafkaOrderLog(File dir) {
            this.dir = dir;
        }

        public File dir() {
            return dir;
        }

        void renameDir(Path to, Runnable afterTheMove) {
            synchronized (lock) {
                try {
                    Files.move(dir.toPath(), to);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
                afterTheMove.run(); // Kafka fsyncs the parent dir here
                dir = to.toFile();
            }
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private double event(String event) {
        return registry.counter(MitigationMetrics.EVENTS, "mitigation", "roll-flush", "event", event).count();
    }

    /** The one method of Kafka's Log/UnifiedLog that PendingSnapshots uses: dir(), which a rename changes. */
    public static final class RenamedLog {
        volatile File dir;

        RenamedLog(File dir) {
            this.dir = dir;
        }

        public File dir() {
            return dir;
        }
    }

    private double flushed() {
        return registry.counter(MitigationMetrics.EVENTS, "mitigation", "roll-flush", "event", "flushed").count();
    }

    private static File snapshot(Path dir, long offset) throws Exception {
        return Files.write(dir.resolve(String.format("%020d.snapshot", offset)), new byte[] {1, 2, 3}).toFile();
    }
}
