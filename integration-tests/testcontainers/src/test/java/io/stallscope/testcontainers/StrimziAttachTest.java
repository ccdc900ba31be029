package io.stallscope.testcontainers;

import io.strimzi.test.container.StrimziKafkaCluster;
import io.strimzi.test.container.StrimziKafkaContainer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.Map;

import static io.stallscope.testcontainers.Op.RECORDS_APPEND;
import static io.stallscope.testcontainers.Role.REQUEST_HANDLER;
import static java.time.Duration.ofSeconds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The agent in Strimzi's test containers, a single container and a cluster, on a locally built image of their contract. */
@Timeout(600)
class StrimziAttachTest {
    /** Strimzi 0.113.0 knows Kafka 4.0.x and 4.1.0; the suite builds 4.1.2. */
    private static final String VERSION = "4.1.2";
    private static final String IMAGE_PROPERTY = "strimzi.test-container.kafka.custom.image";
    private static String previous;

    @BeforeAll
    static void image() {
        ContainerEngine.require(VERSION);
        previous = System.getProperty(IMAGE_PROPERTY);
        // what Strimzi reads for every node it makes itself (StrimziKafkaCluster names no image otherwise)
        System.setProperty(IMAGE_PROPERTY, StrimziLikeImage.of(VERSION));
    }

    @AfterAll
    static void restore() {
        if (previous == null) {
            System.clearProperty(IMAGE_PROPERTY);
        } else {
            System.setProperty(IMAGE_PROPERTY, previous);
        }
    }

    @Test
    void strimziKafkaContainerReportsAppends() throws Exception {
        try (StrimziKafkaContainer kafka = new StrimziKafkaContainer().withBrokerId(1).waitForRunning()) {
            StallscopeAgent agent = StallscopeAgent.attach(kafka, AgentOptions.defaults().topicLabels(true));
            kafka.start();
            MetricsSnapshot before = agent.snapshot();
            try (SteadyProducer p = SteadyProducer.start(kafka.getBootstrapServers(), "strimzi-one", 500, 256)) {
                p.awaitAcknowledged(500, ofSeconds(60));
            }
            StallView between = Stalls.between(before, agent.snapshot());
            assertThat(between.op(RECORDS_APPEND).role(REQUEST_HANDLER).topicPartition("strimzi-one", 0).count()).isGreaterThan(0);
        }
    }

    @Test
    void everyNodeOfAStrimziKafkaClusterReportsItsReplicaAppends() throws Exception {
        for (int attempt = 1; ; attempt++) {
            StrimziKafkaCluster cluster = new StrimziKafkaCluster.StrimziKafkaClusterBuilder().withNumberOfBrokers(2)
                    .withInternalTopicReplicationFactor(2).withSharedNetwork().build();
            List<StallscopeAgent> agents = StrimziAgents.attach(cluster, AgentOptions.defaults().ops(RECORDS_APPEND).topicLabels(true));
            // Strimzi gives the nodes 60 s to start together, fixed; on 2 busy cores two broker JVMs took longer:
            // C1 only and the serial collector start them sooner (appends are still timed the same way)
            for (org.testcontainers.containers.GenericContainer<?> node : cluster.getNodes()) {
                node.addEnv("KAFKA_JVM_PERFORMANCE_OPTS", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC");
            }
            assertThat(agents).hasSize(2);
            try {
                try {
                    cluster.start();
                } catch (RuntimeException e) {
                    // Strimzi gives its nodes 60 s to start together and says no more: their logs say why
                    boolean busy = false;
                    for (org.testcontainers.containers.GenericContainer<?> node : cluster.getNodes()) {
                        String logs = node.getContainerId() == null ? "(not created)" : node.getLogs();
                        busy |= logs.contains("/testcontainers_start.sh: Text file busy");
                        System.out.println("node " + node.getContainerName() + " log tail:\n"
                                + logs.substring(Math.max(0, logs.length() - 3000)));
                    }
                    // A node runs /testcontainers_start.sh as soon as it exists, while Testcontainers may still be
                    // writing it: exec fails with ETXTBSY and that node never starts (seen once in CI). That race
                    // of Strimzi's start-up, and only it, gets a second cluster; anything else fails the test.
                    if (busy && attempt == 1) {
                        System.out.println("Strimzi cluster: a node's start script was still being written (Text file busy); one more try");
                        continue;
                    }
                    throw e;
                }
                List<MetricsSnapshot> before = List.of(agents.get(0).snapshot(), agents.get(1).snapshot());
                Topics.create(cluster.getBootstrapServers(), "strimzi-two", Map.of(), 2);
                try (SteadyProducer p = SteadyProducer.start(cluster.getBootstrapServers(), "strimzi-two", 500, 256)) {
                    p.awaitAcknowledged(500, ofSeconds(60));
                }
                // acks=all with two replicas: the leader appends on a request handler, the follower on its fetcher
                for (int i = 0; i < 2; i++) {
                    StallView between = Stalls.between(before.get(i), agents.get(i).snapshot());
                    assertThat(between.op(RECORDS_APPEND).topicPartition("strimzi-two", 0).count())
                            .as("appends to strimzi-two-0 on node %d", i).isGreaterThan(0);
                }
                return;
            } finally {
                cluster.stop();
            }
        }
    }

    @Test
    void aNullClusterNamesWhatToPass() {
        assertThatThrownBy(() -> StrimziAgents.attach(null, AgentOptions.defaults())).hasMessageContaining("StrimziKafkaCluster");
    }
}
