package io.stallscope.it.broker;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Checks of the harness that need a running broker but not a broker of their own. They run on the brokers
 * AgentAtStartIT starts anyway (one per version, with the agent and a TLS listener): a broker of their own cost
 * 17 s each for the TLS listener on 2.8.2 and 4.4.0 and 7 s for the newest JDK, of a CI run that must stay
 * under 35 minutes.
 */
public final class HarnessChecks {
    /** The versions whose TLS listener is checked: the first (ZooKeeper) and the newest (KRaft) layout. */
    public static final java.util.Set<KafkaVersion> TLS_VERSIONS = java.util.Set.of(KafkaVersions.V2_8_2, KafkaVersions.NEWEST);

    private HarnessChecks() {
    }

    /**
     * The broker's TLS listener (BrokerSpec.withSslListener) serves produce and fetch with the harness's
     * client properties, its port is announced in the broker log, and a plaintext client on it gets nowhere.
     */
    public static void tlsListenerServesProduceAndFetch(KafkaBroker broker) {
        assertThat(broker.sslBootstrapServers()).startsWith("127.0.0.1:").isNotEqualTo(broker.bootstrapServers());
        KafkaClients.createTopic(broker, "tls", 1, KafkaClients.SMALL_SEGMENTS);
        Map<String, Object> producer = new HashMap<>(KafkaClients.producerConfig(broker));
        producer.putAll(broker.sslClientProperties());
        assertThat(KafkaClients.produce(producer, "tls", 2_000, 1_000)).isEqualTo(2_000);
        Map<String, Object> consumer = new HashMap<>(KafkaClients.consumerConfig(broker));
        consumer.putAll(broker.sslClientProperties());
        assertThat(KafkaClients.consumeAll(consumer, "tls", true, Duration.ofSeconds(60))).isEqualTo(2_000);
        assertThat(BrokerTestSupport.read(broker.logFile())).contains("SSL://127.0.0.1:" + broker.sslBootstrapServers().split(":")[1]);
        // A plaintext client against the SSL port gets nowhere.
        Map<String, Object> wrong = new HashMap<>(KafkaClients.consumerConfig(broker));
        wrong.put("bootstrap.servers", broker.sslBootstrapServers());
        wrong.put("request.timeout.ms", 3000);
        wrong.put("default.api.timeout.ms", 5000);
        assertThatThrownBy(() -> KafkaClients.consumeAll(wrong, "tls", true, Duration.ofSeconds(5)))
                .isInstanceOf(RuntimeException.class);
    }

    /** The broker runs on the JDK its spec names (javaHome), and that JDK is the machine's newest, 25 or later. */
    public static void runsOnTheNewestJdk(KafkaBroker broker) throws Exception {
        Path newest = KafkaJdks.newest();
        int feature = KafkaJdks.featureVersion(newest).orElseThrow();
        assertThat(feature).as("newest JDK under /usr/lib/jvm (%s)", newest).isGreaterThanOrEqualTo(25);
        String command = ProcessHandle.of(broker.pid()).orElseThrow().info().command().orElseThrow();
        assertThat(Path.of(command).toRealPath()).startsWith(newest.toRealPath());
        BrokerTestSupport.recordTiming(String.format("kafka %s on JDK %d: start %d ms",
                broker.version(), feature, broker.lastStartDuration().toMillis()));
    }
}
