package io.stallscope.it.agent;

import io.stallscope.it.broker.HarnessChecks;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.KafkaJdks;
import io.stallscope.it.broker.KafkaVersion;
import io.stallscope.it.broker.KafkaVersions;
import io.stallscope.it.broker.ProducerPerfResult;
import io.stallscope.it.container.BrokerFactory;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent given to a real broker (a child JVM) at start, as an operator does with KAFKA_OPTS, on the
 * versions with a changed storage path and on the newest JDK: {@link AgentAtStartCheck}. The same broker also
 * shows the harness works for that version (what BrokerVersionsIT checked on a broker of its own): it starts,
 * rolls, gives every record back (the check), runs Kafka's own ProducerPerformance, and stops cleanly. It also
 * carries {@link HarnessChecks}, once BrokerLifecycleIT's tests on brokers of their own: the TLS listener
 * (produce and fetch over it, a plaintext client refused) on 2.8.2 and the newest Kafka, and the newest Kafka
 * running on the newest JDK.
 */
class AgentAtStartIT {
    static Stream<Arguments> brokers() {
        List<Arguments> out = new ArrayList<>();
        for (KafkaVersion v : KafkaVersions.tested()) {
            out.add(Arguments.of(v, KafkaJdks.defaultJdk()));
        }
        // the newest Kafka also on the newest JDK on this machine (no JDK 11 can be had here)
        Path newest = KafkaJdks.newest();
        if (!newest.equals(KafkaJdks.defaultJdk())) {
            out.add(Arguments.of(KafkaVersions.NEWEST, newest));
        }
        return out.stream();
    }

    @ParameterizedTest(name = "Kafka {0} on {1}")
    @MethodSource("brokers")
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void everyPointIsTimedWithRoleAndPartition(KafkaVersion version, Path jdk) throws Exception {
        Path[] log = new Path[1];
        boolean newestJdk = !jdk.equals(KafkaJdks.defaultJdk());
        AgentAtStartCheck.run(BrokerFactory.LOCAL, version, jdk, broker -> {
            log[0] = broker.logFile();
            // the harness's own checks that need a broker but not one of their own (were BrokerLifecycleIT's)
            if (newestJdk) {
                HarnessChecks.runsOnTheNewestJdk(broker);
            } else if (HarnessChecks.TLS_VERSIONS.contains(version)) {
                HarnessChecks.tlsListenerServesProduceAndFetch(broker);
            }
            KafkaClients.createTopic(broker, "perf", 1, Map.of());
            ProducerPerfResult perf = KafkaClients.producerPerformance(broker, "perf", 20_000, 100, -1, Map.of(),
                Duration.ofSeconds(90));
            assertThat(perf.records()).isEqualTo(20_000);
            assertThat(perf.recordsPerSec()).isPositive();
            assertThat(perf.p999Ms()).isGreaterThanOrEqualTo(perf.p50Ms());
            assertThat(KafkaClients.consumeAll(broker, "perf", true, Duration.ofSeconds(60))).isEqualTo(20_000);
        });
        assertThat(Files.readString(log[0], StandardCharsets.ISO_8859_1)).as("clean shutdown in %s", log[0])
            .containsIgnoringCase("shut down completed");
    }
}
