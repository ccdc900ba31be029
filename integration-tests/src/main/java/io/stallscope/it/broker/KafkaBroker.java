package io.stallscope.it.broker;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A real single-node Kafka broker under test. {@link LocalKafkaBroker} runs it in a child JVM; a
 * container implementation can follow. All client traffic goes to 127.0.0.1.
 */
public interface KafkaBroker extends AutoCloseable {

    BrokerSpec spec();

    default KafkaVersion version() {
        return spec().version();
    }

    /** Starts and waits until the broker answers describeCluster (bounded by the spec's start timeout). */
    void start();

    /** Graceful stop (SIGTERM), bounded wait, then SIGKILL. */
    void stop();

    /** SIGKILL, no clean shutdown: for crash/recovery tests. */
    void kill();

    /** Stops if running, then starts again on the same data directory and ports. */
    void restart();

    boolean isRunning();

    /** {@code 127.0.0.1:<plaintext port>}. */
    String bootstrapServers();

    /** {@code 127.0.0.1:<ssl port>}; fails unless built with {@link BrokerSpec.Builder#withSslListener()}. */
    String sslBootstrapServers();

    /** Client properties (security.protocol, truststore) for the SSL listener. */
    java.util.Map<String, Object> sslClientProperties();

    /** Process id of the broker JVM (for the attach API). */
    long pid();

    /** The broker's log file (log4j output at INFO). */
    Path logFile();

    /** The broker JVM's stdout and stderr. */
    Path stdoutFile();

    Path workDir();

    /** The directory holding the partition directories (log.dirs). */
    Path dataDir();

    /** How long the last start() took until the broker answered. */
    Duration lastStartDuration();

    /**
     * Runs a Kafka tool main class of the broker's own version (e.g. ProducerPerformance) next to the
     * broker and waits for it; the harness does not pass the broker's JVM args or env to tools.
     */
    ToolResult runTool(String mainClass, List<String> args, Duration timeout);

    /** Stops everything and never throws for an already stopped broker. */
    @Override
    void close();

    /** Exit code and combined output of a tool run. */
    record ToolResult(int exitCode, String output, Path outputFile, Duration duration) {
        public boolean succeeded() {
            return exitCode == 0;
        }
    }
}
