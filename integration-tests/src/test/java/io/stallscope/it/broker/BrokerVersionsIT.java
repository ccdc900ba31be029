package io.stallscope.it.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * For each tested Kafka version: a real broker (no agent) starts, takes ~5 MB with acks=all into a
 * topic with 1 MiB segments (so segments roll), gives every record back, runs Kafka's own
 * ProducerPerformance, and stops cleanly.
 */
class BrokerVersionsIT {

    static final int RECORDS = 5_000;
    static final int RECORD_SIZE = 1_000;

    static List<KafkaVersion> versions() {
        return KafkaVersions.tested();
    }

    @ParameterizedTest(name = "Kafka {0}")
    @MethodSource("versions")
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void producesRollsConsumesAndStops(KafkaVersion version) {
        long t0 = System.nanoTime();
        try (LocalKafkaBroker broker = new LocalKafkaBroker(BrokerSpec.builder(version).name("versions").build())) {
            broker.start();
            long startMs = broker.lastStartDuration().toMillis();
            assertThat(broker.bootstrapServers()).startsWith("127.0.0.1:");
            assertThat(BrokerTestSupport.read(broker.logFile()))
                    .as("broker log %s has the readiness line", broker.logFile())
                    .contains(version.readyLogLine());

            KafkaClients.createTopic(broker, "rolls", 1, KafkaClients.SMALL_SEGMENTS);
            long produceStart = System.nanoTime();
            assertThat(KafkaClients.produce(broker, "rolls", RECORDS, RECORD_SIZE)).isEqualTo(RECORDS);
            long produceMs = BrokerTestSupport.millisSince(produceStart);
            assertThat(KafkaClients.consumeAll(broker, "rolls", true, Duration.ofSeconds(60))).isEqualTo(RECORDS);
            // ~5 MB of incompressible values in 1 MiB segments: at least 4 rolls.
            assertThat(BrokerTestSupport.segmentFiles(broker, "rolls", 0)).hasSizeGreaterThanOrEqualTo(5);

            KafkaClients.createTopic(broker, "perf", 1, Map.of());
            ProducerPerfResult perf = KafkaClients.producerPerformance(broker, "perf", 20_000, 100, -1, Map.of(),
                    Duration.ofSeconds(90));
            assertThat(perf.records()).isEqualTo(20_000);
            assertThat(perf.recordsPerSec()).isPositive();
            assertThat(perf.p999Ms()).isGreaterThanOrEqualTo(perf.p50Ms());
            assertThat(KafkaClients.consumeAll(broker, "perf", true, Duration.ofSeconds(60))).isEqualTo(20_000);

            long stopStart = System.nanoTime();
            broker.stop();
            long stopMs = BrokerTestSupport.millisSince(stopStart);
            assertThat(broker.isRunning()).isFalse();
            assertThat(BrokerTestSupport.read(broker.logFile()))
                    .as("clean shutdown in %s", broker.logFile())
                    .containsIgnoringCase("shut down completed");
            BrokerTestSupport.recordTiming(String.format(
                    "kafka %s: start %d ms, produce 5 MB %d ms, perf %.0f rec/s p99 %.0f ms, stop %d ms, test total %d ms",
                    version, startMs, produceMs, perf.recordsPerSec(), perf.p99Ms(), stopMs,
                    BrokerTestSupport.millisSince(t0)));
        }
    }
}
