package io.stallscope.agent.mitigate;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.stallscope.agent.logging.BrokerLog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The segment-flush delay drops a delayed flush (on a scheduler thread) of a log renamed for deletion
 * meanwhile, and nothing else: a live log, a promoted -future log at its new path, another thread, or the
 * delay off all flush as Kafka does.
 */
class SegmentFlushDelayHooksTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @AfterEach
    void off() {
        SegmentFlushDelayHooks.uninstall();
        RollFlushHooks.uninstall();
    }

    @Test
    void aDroppedFlushReleasesTheRollFlushSlotsOfItsLog(@TempDir Path tmp) throws Exception {
        MitigationMetrics metrics = new MitigationMetrics(registry, BrokerLog.get());
        SegmentFlushDelayHooks.install(TimeUnit.SECONDS.toNanos(20), metrics);
        PendingSnapshots pending = new PendingSnapshots(1, metrics);
        RollFlushHooks.install(pending, metrics);
        Path deleted = Files.createDirectories(tmp.resolve("t-0.8a7c1b-delete"));
        assertThat(pending.defer(Files.createFile(deleted.resolve("00000000000000000100.snapshot")).toFile(),
            new Log(deleted.toFile()))).isTrue();

        assertThat(onThread("kafka-scheduler-0", new Log(deleted.toFile()))).isTrue();
        assertThat(pending.size()).as("no max.pending slot left to the deleted log").isZero();
        assertThat(pending.defer(tmp.resolve("t-1/00000000000000000100.snapshot").toFile(), null))
            .as("the next roll defers again instead of fsyncing inline").isTrue();
    }

    @Test
    void dropsOnlyAScheduledFlushOfALogRenamedForDeletion(@TempDir Path tmp) throws Exception {
        SegmentFlushDelayHooks.install(TimeUnit.SECONDS.toNanos(20), new MitigationMetrics(registry, BrokerLog.get()));
        Log live = new Log(Files.createDirectories(tmp.resolve("t-0")).toFile());
        Log deleted = new Log(Files.createDirectories(tmp.resolve("t-0.8a7c1b-delete")).toFile());
        Log gone = new Log(tmp.resolve("t-1").toFile());

        assertThat(onThread("kafka-scheduler-3", live)).isFalse();
        assertThat(onThread("kafka-scheduler-3", deleted)).isTrue();
        assertThat(onThread("kafka-scheduler-3", gone)).isTrue();
        assertThat(onThread("data-plane-kafka-request-handler-0", deleted)).as("not a flush-log job").isFalse();
        assertThat(registry.counter(MitigationMetrics.EVENTS, "mitigation", "segment-flush-delay",
            "event", "dropped_deleted_log").count()).isEqualTo(2);

        SegmentFlushDelayHooks.uninstall();
        assertThat(onThread("kafka-scheduler-3", deleted)).as("delay off: Kafka's behaviour").isFalse();
    }

    private static boolean onThread(String name, Object log) throws Exception {
        AtomicBoolean dropped = new AtomicBoolean();
        Thread t = new Thread(() -> dropped.set(SegmentFlushDelayHooks.dropFlush(log)), name);
        t.start();
        t.join();
        return dropped.get();
    }

    /** The one method of Kafka's Log/UnifiedLog the check uses: dir(). */
    public static final class Log {
        private final File dir;

        Log(File dir) {
            this.dir = dir;
        }

        public File dir() {
            return dir;
        }
    }
}
