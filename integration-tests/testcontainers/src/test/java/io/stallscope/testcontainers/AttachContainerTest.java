package io.stallscope.testcontainers;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.AbstractWaitStrategy;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.utility.DockerImageName;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;

import static io.stallscope.testcontainers.Op.RECORDS_APPEND;
import static io.stallscope.testcontainers.Op.SNAPSHOT_WRITE;
import static io.stallscope.testcontainers.Role.REQUEST_HANDLER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The agent attached to each container kind, against real containers of it (images built locally). */
@Timeout(300)
class AttachContainerTest {
    private static DockerImageName image;

    @BeforeAll
    static void engine() {
        ContainerEngine.require();
        image = ApacheKafkaLikeImage.of(ContainerEngine.VERSION);
    }

    @Test
    void testcontainersKafkaContainerReportsTheWorkloadBetweenTwoSnapshots() throws Exception {
        try (KafkaContainer kafka = new KafkaContainer(image)) {
            StallscopeAgent agent = StallscopeAgent.attach(kafka, AgentOptions.defaults().topicLabels(true)
                    .slowThreshold(Duration.ofMillis(1)));
            kafka.start();

            MetricsSnapshot before = agent.snapshot();
            produce(kafka.getBootstrapServers(), "attach-kc", 2000);
            MetricsSnapshot after = agent.snapshot();
            StallView between = Stalls.between(before, after);

            assertThat(between.op(RECORDS_APPEND).role(REQUEST_HANDLER).count()).isGreaterThan(0);
            assertThat(between.op(RECORDS_APPEND).role(REQUEST_HANDLER).topicPartition("attach-kc", 0).count())
                    .isEqualTo(between.op(RECORDS_APPEND).role(REQUEST_HANDLER).count());
            StallAssertions.assertThat(between).op(RECORDS_APPEND).role(REQUEST_HANDLER).hasCountAtLeast(1)
                    .p999().isLessThan(Duration.ofSeconds(10));
            StallAssertions.assertThat(between).op(SNAPSHOT_WRITE).role(REQUEST_HANDLER).hasNoOps();
            // the agent's own exact max lies in the bucket the buckets give for it
            double exactMax = after.sum("stallscope_op_seconds_max", Map.of("op", "records_append", "role", "request_handler"));
            Percentile max = after.op(RECORDS_APPEND).role(REQUEST_HANDLER).max();
            assertThat(Math.round(exactMax * 1e9)).isGreaterThan(max.lower().toNanos())
                    .isLessThanOrEqualTo(max.upper().toNanos());
            // a failed assertion shows the histogram and the container's slow-op lines (which ops were slow
            // enough to log depends on the machine, so the newest line is what must be shown)
            java.util.List<String> slowLines = between.slowOpLines();
            assertThatThrownBy(() -> StallAssertions.assertThat(between).op(RECORDS_APPEND).role(REQUEST_HANDLER)
                    .hasNoneOver(Duration.ofNanos(1)))
                    .hasMessageContaining("histogram of records_append on request_handler")
                    .hasMessageContaining(slowLines.isEmpty() ? "no slow-op log lines from the agent"
                            : slowLines.get(slowLines.size() - 1));
        }
    }

    @Test
    void anyGenericContainerRunningKafkaWithHostNetworking() throws Exception {
        int port = freePort();
        int controller = freePort();
        int metrics = freePort();
        try (GenericContainer<?> kafka = new GenericContainer<>(image)
                .withNetworkMode("host")
                .withEnv("CLUSTER_ID", "4L6g3nShT-eMCtK--X86sw")
                .withEnv("KAFKA_NODE_ID", "1")
                .withEnv("KAFKA_PROCESS_ROLES", "broker,controller")
                .withEnv("KAFKA_LISTENERS", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controller)
                .withEnv("KAFKA_ADVERTISED_LISTENERS", "PLAINTEXT://127.0.0.1:" + port)
                .withEnv("KAFKA_CONTROLLER_LISTENER_NAMES", "CONTROLLER")
                .withEnv("KAFKA_CONTROLLER_QUORUM_VOTERS", "1@127.0.0.1:" + controller)
                .withEnv("KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR", "1")
                .withEnv("KAFKA_LOG_SEGMENT_BYTES", "1048576")
                .withEnv("KAFKA_OPTS", "-Dstallscope.test.kept=yes")
                .waitingFor(Wait.forLogMessage(".*Kafka Server started.*", 1))) {
            StallscopeAgent agent = StallscopeAgent.attach(kafka, AgentOptions.defaults().metricsPort(metrics));
            assertThat(kafka.getEnvMap().get("KAFKA_OPTS")).startsWith("-Dstallscope.test.kept=yes -javaagent:");
            kafka.start();

            assertThat(agent.metricsUrl()).isEqualTo("http://127.0.0.1:" + metrics + "/metrics");
            MetricsSnapshot before = agent.snapshot();
            produce("127.0.0.1:" + port, "attach-gc", 3000);
            StallAssertions.assertThat(Stalls.between(before, agent.snapshot())).op(RECORDS_APPEND)
                    .role(REQUEST_HANDLER).hasCountAtLeast(1);
            assertThatThrownBy(() -> StallscopeAgent.attach(kafka)).hasMessageContaining("has started already");
        }
    }

    @Test
    void aContainerWithoutKafkaGetsAnErrorNamingTheCause() {
        try (GenericContainer<?> noKafka = new GenericContainer<>(image)
                .withCommand("/bin/sleep", "120")
                // started once the process runs: it listens on nothing, the metrics port included
                .waitingFor(new AbstractWaitStrategy() {
                    @Override
                    protected void waitUntilReady() {
                    }
                })) {
            StallscopeAgent agent = StallscopeAgent.attach(noKafka);
            assertThatThrownBy(agent::snapshot).hasMessageContaining("has not been started");
            noKafka.start();
            assertThatThrownBy(agent::snapshot).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("no JVM in the container loaded the agent")
                    .hasMessageContaining("kafka.Kafka");
        }
    }

    static void produce(String bootstrap, String topic, int records) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            byte[] value = new byte[1024];
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topic, 0, null, value));
                if (i % 100 == 99) {
                    producer.flush();
                }
            }
            producer.flush();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
