package io.stallscope.it.mitigate;

import io.stallscope.it.agent.AgentJar;
import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.FreePorts;
import io.stallscope.it.broker.KafkaVersion;
import io.stallscope.it.broker.LocalKafkaBroker;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * Three brokers of one version on loopback, node ids 1 to 3. Node 1 holds the cluster's metadata (KRaft: the
 * only controller, combined with its broker; 2.8: the ZooKeeper the others register with), so node 3, a broker
 * only, can lose power and come back without the cluster losing its controller. Every broker gets the same
 * server properties and the same agent options (null: no agent), as a fleet is configured; {@code node3Disk}
 * puts node 3's log dir where the caller wants it, e.g. on a disk whose power can be cut.
 */
final class ThreeBrokerCluster implements AutoCloseable {
    static final int VICTIM = 3;

    private final List<LocalKafkaBroker> brokers = new ArrayList<>();
    private final int[] prometheusPorts = new int[3];
    private LocalKafkaBroker victimWithoutAgent;

    ThreeBrokerCluster(String version, String name, Map<String, String> serverProperties, String agentOptions,
                       Consumer<BrokerSpec.Builder> node3Disk) {
        try {
            for (int node = 1; node <= 3; node++) {
                BrokerSpec.Builder b = BrokerSpec.builder(version).name(name + "-" + node).nodeId(node)
                    .serverProperties(serverProperties);
                if (agentOptions != null) {
                    prometheusPorts[node - 1] = FreePorts.next();
                    b.javaAgent(AgentJar.path(), "prometheus=127.0.0.1:" + prometheusPorts[node - 1] + "," + agentOptions);
                }
                if (node > 1) {
                    LocalKafkaBroker first = brokers.get(0);
                    if (KafkaVersion.of(version).usesKRaft()) {
                        b.joinKRaftCluster(first.quorumVoters(), first.clusterId());
                    } else {
                        b.joinZooKeeper("127.0.0.1:" + first.ports().zooKeeperPort());
                    }
                }
                if (node == VICTIM) {
                    node3Disk.accept(b);
                }
                LocalKafkaBroker broker = new LocalKafkaBroker(b.build());
                brokers.add(broker);
                broker.start();
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    LocalKafkaBroker broker(int node) {
        return brokers.get(node - 1);
    }

    LocalKafkaBroker victim() {
        return broker(VICTIM);
    }

    /**
     * Node 3 as the same spec without the agent: a control broker for node 3's data dir, started in its place
     * (its own work dir and ports; the cluster knows it by its node id). Made on first use, closed with the cluster.
     */
    LocalKafkaBroker victimWithoutAgent() {
        if (victimWithoutAgent == null) {
            BrokerSpec spec = victim().spec();
            victimWithoutAgent = new LocalKafkaBroker(spec.toBuilder().withoutJavaAgents().name(spec.name() + "-noagent").workDir(null).build());
        }
        return victimWithoutAgent;
    }

    /** The node's agent metrics port, 0 without the agent. */
    int prometheusPort(int node) {
        return prometheusPorts[node - 1];
    }

    String bootstrapServers() {
        return brokers.stream().map(LocalKafkaBroker::bootstrapServers).collect(Collectors.joining(","));
    }

    /** A producer's settings for the whole cluster: batches of up to 64 KiB, 5 ms linger, byte arrays. */
    Map<String, Object> producerConfig() {
        Map<String, Object> c = new java.util.HashMap<>();
        c.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        c.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        c.put(ProducerConfig.BATCH_SIZE_CONFIG, 64 * 1024);
        c.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        c.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return c;
    }

    /** Kills the brokers, node 1 (the controller or ZooKeeper's host) last and stopped with its ZooKeeper. */
    @Override
    public void close() {
        if (victimWithoutAgent != null) {
            victimWithoutAgent.kill();
            victimWithoutAgent.close();
        }
        for (int i = brokers.size() - 1; i >= 0; i--) {
            LocalKafkaBroker b = brokers.get(i);
            b.kill(); // the log dirs are thrown away: no clean shutdown needed
            b.close();
        }
    }
}
