package io.stallscope.agent.mitigate;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.stallscope.agent.kafka.KafkaTargets;
import io.stallscope.agent.logging.BrokerLog;
import io.stallscope.agent.mitigate.advice.SnapshotFlushRetargetAdvice;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.dynamic.loading.ClassLoadingStrategy;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Kafka 3.7+'s own snapshot fsync in the delayed flush-log job (UnifiedLog.flushProducerStateSnapshot, by a
 * path fixed at the roll), with the segment-flush delay: the advice woven onto a class of that method's shape
 * re-targets it to the log's current directory after a rename (-future promoted), skips it for a log renamed
 * -delete, and leaves every other call as Kafka makes it. The broker-level proof is LogDirMoveIT on 4.1.2.
 */
class SnapshotFlushRetargetTest {
    private static final String SNAPSHOT = "00000000000000001234.snapshot";
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private Class<?> woven;

    @BeforeEach
    void weave() {
        SegmentFlushDelayHooks.install(TimeUnit.SECONDS.toNanos(20), new MitigationMetrics(registry, BrokerLog.get()));
        woven = new ByteBuddy().redefine(Log.class).name(Log.class.getName() + "$Woven")
            .visit(Advice.to(SnapshotFlushRetargetAdvice.class).on(KafkaTargets.SNAPSHOT_FLUSH.shape()))
            .make().load(Log.class.getClassLoader(), ClassLoadingStrategy.Default.WRAPPER).getLoaded();
    }

    @AfterEach
    void off() {
        SegmentFlushDelayHooks.uninstall();
    }

    @Test
    void aPromotedFutureLogsSnapshotIsSyncedAtItsNewPath(@TempDir Path tmp) throws Exception {
        Path rolledAt = tmp.resolve("logs-b/moved-0.8a7c1b-future").resolve(SNAPSHOT);
        Path now = Files.createFile(Files.createDirectories(tmp.resolve("logs-b/moved-0")).resolve(SNAPSHOT));
        Flusher log = log(now.getParent());

        log.flushProducerStateSnapshot(rolledAt);

        assertThat(log.flushed()).containsExactly(now);
        assertThat(event("flushed_renamed")).isEqualTo(1);
    }

    @Test
    void aLogRenamedForDeletionHasItsSnapshotFsyncSkipped(@TempDir Path tmp) throws Exception {
        Path rolledAt = tmp.resolve("logs-a/moved-0").resolve(SNAPSHOT);
        Path deleted = Files.createDirectories(tmp.resolve("logs-a/moved-0.8a7c1b-delete"));
        Files.createFile(deleted.resolve(SNAPSHOT));
        Flusher log = log(deleted);

        log.flushProducerStateSnapshot(rolledAt);

        assertThat(log.flushed()).isEmpty();
        assertThat(event("snapshot_dropped_deleted_log")).isEqualTo(1);
        assertThat(event("flushed_renamed")).isZero();
    }

    @Test
    void everyOtherCallIsKafkas(@TempDir Path tmp) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("t-0"));
        Path there = Files.createFile(dir.resolve(SNAPSHOT));
        Path gone = dir.resolve("00000000000000000100.snapshot");
        Flusher log = log(dir);

        log.flushProducerStateSnapshot(there);
        log.flushProducerStateSnapshot(gone); // deleted meanwhile, not renamed: Kafka's WARN, as without the agent
        Path elsewhere = tmp.resolve("u-0.8a7c1b-future").resolve(SNAPSHOT);
        Files.delete(there);
        log.flushProducerStateSnapshot(elsewhere); // renamed, but no such file in the log's dir either
        SegmentFlushDelayHooks.uninstall();
        Files.createFile(there);
        log.flushProducerStateSnapshot(elsewhere); // the delay off

        assertThat(log.flushed()).containsExactly(there, gone, elsewhere, elsewhere);
        assertThat(registry.getMeters()).isEmpty();
    }

    @Test
    void anIoErrorOfTheRetargetedFsyncIsKafkasAndCountedAsSuch(@TempDir Path tmp) throws Exception {
        Path rolledAt = tmp.resolve("moved-0.8a7c1b-future").resolve(SNAPSHOT);
        Path now = Files.createFile(Files.createDirectories(tmp.resolve("moved-0")).resolve(SNAPSHOT));
        Flusher log = log(now.getParent());
        log.failWith(new IOException("simulated: the disk's error on fsync"));

        assertThatThrownBy(() -> log.flushProducerStateSnapshot(rolledAt)).hasMessageContaining("simulated");

        assertThat(log.flushed()).containsExactly(now);
        assertThat(event("renamed_io_error")).isEqualTo(1);
        assertThat(event("flushed_renamed")).isZero();
    }

    @Test
    void aLogWithoutDirIsLeftToKafka(@TempDir Path tmp) throws Exception {
        Path gone = tmp.resolve("t-0").resolve(SNAPSHOT);
        Flusher log = (Flusher) woven.getConstructor(File.class).newInstance((File) null);

        log.flushProducerStateSnapshot(gone);

        assertThat(log.flushed()).containsExactly(gone);
        assertThat(registry.getMeters()).isEmpty();
    }

    private Flusher log(Path dir) throws ReflectiveOperationException {
        return (Flusher) woven.getConstructor(File.class).newInstance(dir.toFile());
    }

    private double event(String event) {
        return registry.counter(MitigationMetrics.EVENTS, "mitigation", "segment-flush-delay", "event", event).count();
    }

    public interface Flusher {
        void flushProducerStateSnapshot(Path snapshot) throws IOException;

        List<Path> flushed();

        void failWith(IOException error);
    }

    /**
     * UnifiedLog's two members the advice meets: dir() and flushProducerStateSnapshot(Path), whose body is
     * Kafka's (3.7 to 4.4: Utils.flushFileIfExists, inside maybeHandleIOException).
     */
    public static class Log implements Flusher {
        private final File dir;
        private final List<Path> flushed = new ArrayList<>();
        private IOException error;

        public Log(File dir) {
            this.dir = dir;
        }

        public File dir() {
            return dir;
        }

        @Override
        public void flushProducerStateSnapshot(Path snapshot) throws IOException {
            flushed.add(snapshot);
            if (error != null) {
                throw error;
            }
            Utils.flushFileIfExists(snapshot);
        }

        @Override
        public void failWith(IOException e) {
            error = e;
        }

        @Override
        public List<Path> flushed() {
            return flushed;
        }
    }
}
