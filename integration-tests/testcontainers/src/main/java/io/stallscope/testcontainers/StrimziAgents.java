package io.stallscope.testcontainers;

import io.strimzi.test.container.StrimziKafkaCluster;
import org.testcontainers.containers.GenericContainer;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The agent in every node of a Strimzi {@link StrimziKafkaCluster} ({@code io.strimzi:strimzi-test-container},
 * which this module only compiles against: add it to your own build to use this class). A single
 * {@code StrimziKafkaContainer} is a {@link GenericContainer} whose start script runs Kafka's
 * {@code bin/kafka-server-start.sh}: {@link StallscopeAgent#attach(GenericContainer, AgentOptions)} takes it as it is.
 * Kept apart from {@link StallscopeAgent} so that builds without Strimzi never meet its types.
 */
public final class StrimziAgents {
    private StrimziAgents() {
    }

    /**
     * Attaches the agent to each node of a built, not yet started cluster (brokers and controllers: both run
     * {@code kafka.Kafka}); the agents come in the order of {@link StrimziKafkaCluster#getNodes()}.
     */
    public static List<StallscopeAgent> attach(StrimziKafkaCluster cluster, AgentOptions options) {
        if (cluster == null) {
            throw new IllegalArgumentException("cluster is null: pass the StrimziKafkaCluster from its builder's build(),"
                    + " before start()");
        }
        Objects.requireNonNull(options, "options: AgentOptions.defaults() or a copy of it");
        List<StallscopeAgent> agents = new ArrayList<>();
        for (GenericContainer<?> node : cluster.getNodes()) {
            agents.add(StallscopeAgent.attach(node, options));
        }
        if (agents.isEmpty()) {
            throw new IllegalStateException("the Strimzi cluster has no nodes to attach the agent to");
        }
        return agents;
    }
}
