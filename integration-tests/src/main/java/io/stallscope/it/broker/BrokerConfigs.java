package io.stallscope.it.broker;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Generates {@code server.properties} and {@code zookeeper.properties} for a single-node broker
 * listening on 127.0.0.1. Pure: no files, no processes, so it is unit-tested.
 */
public final class BrokerConfigs {

    public static final String HOST = "127.0.0.1";

    private BrokerConfigs() {
    }

    /** Ports and paths a broker runs with; {@code sslPort} 0 means no SSL listener. */
    public record Endpoints(int plaintextPort, int controllerPort, int sslPort, int zooKeeperPort) {
    }

    /** Keystore/truststore settings for the SSL listener, or null. */
    public record Tls(Path keyStore, Path trustStore, String password) {
    }

    public static Map<String, String> serverProperties(KafkaVersion version, int nodeId, Endpoints ports, Path dataDir,
                                                       Tls tls, Map<String, String> extra) {
        Map<String, String> p = new LinkedHashMap<>();
        String plaintext = "PLAINTEXT://" + HOST + ":" + ports.plaintextPort();
        String ssl = ports.sslPort() > 0 ? "SSL://" + HOST + ":" + ports.sslPort() : null;
        String advertised = ssl == null ? plaintext : plaintext + "," + ssl;
        String protocolMap = "PLAINTEXT:PLAINTEXT" + (ssl == null ? "" : ",SSL:SSL");
        if (version.usesZooKeeper()) {
            p.put("broker.id", Integer.toString(nodeId));
            p.put("zookeeper.connect", HOST + ":" + ports.zooKeeperPort());
            p.put("zookeeper.connection.timeout.ms", "30000");
            // After kill() the old registration must expire before a restarted broker can register.
            p.put("zookeeper.session.timeout.ms", "6000");
            p.put("listeners", advertised);
            p.put("listener.security.protocol.map", protocolMap);
        } else {
            p.put("process.roles", "broker,controller");
            p.put("node.id", Integer.toString(nodeId));
            p.put("controller.quorum.voters", nodeId + "@" + HOST + ":" + ports.controllerPort());
            p.put("controller.listener.names", "CONTROLLER");
            p.put("listeners", advertised + ",CONTROLLER://" + HOST + ":" + ports.controllerPort());
            p.put("listener.security.protocol.map", protocolMap + ",CONTROLLER:PLAINTEXT");
        }
        p.put("advertised.listeners", advertised);
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("log.dirs", dataDir.toString());
        p.put("num.partitions", "1");
        p.put("default.replication.factor", "1");
        p.put("min.insync.replicas", "1");
        p.put("offsets.topic.replication.factor", "1");
        p.put("offsets.topic.num.partitions", "1");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("transaction.state.log.num.partitions", "1");
        p.put("group.initial.rebalance.delay.ms", "0");
        p.put("num.network.threads", "3");
        p.put("num.io.threads", "8");
        if (ssl != null && tls != null) {
            p.put("ssl.keystore.type", "PKCS12");
            p.put("ssl.keystore.location", tls.keyStore().toString());
            p.put("ssl.keystore.password", tls.password());
            p.put("ssl.key.password", tls.password());
            p.put("ssl.truststore.type", "PKCS12");
            p.put("ssl.truststore.location", tls.trustStore().toString());
            p.put("ssl.truststore.password", tls.password());
            p.put("ssl.endpoint.identification.algorithm", "");
        }
        p.putAll(extra);
        return p;
    }

    /**
     * The properties of a broker-only node joining a KRaft cluster whose controllers are {@code quorumVoters}:
     * no controller role and no CONTROLLER listener of its own (Kafka refuses one on a broker-only node),
     * but the CONTROLLER name stays in the protocol map to reach the quorum.
     */
    public static Map<String, String> brokerOnly(Map<String, String> combined, String quorumVoters) {
        Map<String, String> p = new LinkedHashMap<>(combined);
        p.put("process.roles", "broker");
        p.put("controller.quorum.voters", quorumVoters);
        p.put("listeners", String.join(",", java.util.Arrays.stream(combined.get("listeners").split(","))
            .filter(l -> !l.startsWith("CONTROLLER://")).toList()));
        return p;
    }

    public static Map<String, String> zooKeeperProperties(int port, Path dataDir) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("dataDir", dataDir.toString());
        p.put("clientPort", Integer.toString(port));
        p.put("clientPortAddress", HOST);
        p.put("tickTime", "2000");
        p.put("maxClientCnxns", "0");
        // ZooKeeper 3.5+ would otherwise start an HTTP admin server on 0.0.0.0:8080.
        p.put("admin.enableServer", "false");
        return p;
    }

    /** Renders properties in file form, escaping what {@link java.util.Properties#load} would misread. */
    public static String render(Map<String, String> props) {
        StringBuilder sb = new StringBuilder("# generated by stallscope integration-tests\n");
        props.forEach((k, v) -> sb.append(k).append('=').append(escape(v)).append('\n'));
        return sb.toString();
    }

    static String escape(String value) {
        return value.replace("\\", "\\\\").replace("\n", "\\n");
    }
}
