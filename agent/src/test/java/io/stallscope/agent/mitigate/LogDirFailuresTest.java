package io.stallscope.agent.mitigate;

import io.stallscope.agent.kafka.KafkaJars;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A failed final sync goes to Kafka's own LogDirFailureChannel (3.6.2's, from its kafka-storage jar), as its
 * maybeHandleIOException hands it an I/O error: the partition's log dir is offline and queued for the
 * broker's LogDirFailureHandler, which stops serving it.
 */
class LogDirFailuresTest {
    @Test
    void theLogsDirIsHandedToKafkasFailureChannel(@TempDir Path tmp) throws Exception {
        Path jar = KafkaJars.root().resolve("3.6.2").resolve("kafka-storage-3.6.2.jar");
        try (URLClassLoader kafka = new URLClassLoader(new URL[] {jar.toUri().toURL()}, getClass().getClassLoader())) {
            Class<?> type = kafka.loadClass("org.apache.kafka.storage.internals.log.LogDirFailureChannel");
            Object channel = type.getConstructor(int.class).newInstance(2);
            Path logDir = Files.createDirectories(tmp.resolve("logs-a"));
            Path partition = Files.createDirectories(logDir.resolve("topic-0"));
            File snapshot = partition.resolve("00000000000000001024.snapshot").toFile();

            String offline = LogDirFailures.report(new LogWithChannel(partition.toFile(), channel), snapshot,
                "Error while flushing " + snapshot, new IOException("Input/output error"));

            assertThat(offline).isEqualTo(logDir.toString());
            assertThat(type.getMethod("hasOfflineLogDir", String.class).invoke(channel, logDir.toString())).isEqualTo(true);
            assertThat(type.getMethod("takeNextOfflineLogDir").invoke(channel)).as("queued for the handler")
                .isEqualTo(logDir.toString());
        }
    }

    /** Kafka 2.8's Log as the agent reads it: dir(), and its channel in a private field. */
    public static final class LogWithChannel {
        private final File dir;
        private final Object logDirFailureChannel;

        LogWithChannel(File dir, Object channel) {
            this.dir = dir;
            this.logDirFailureChannel = channel;
        }

        public File dir() {
            return dir;
        }
    }
}
