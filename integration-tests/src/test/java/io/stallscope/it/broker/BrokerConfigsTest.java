package io.stallscope.it.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

import org.junit.jupiter.api.Test;

class BrokerConfigsTest {

    private static final Path DATA = Path.of("/tmp/w/data");

    @Test
    void zooKeeperModeFor28() {
        var ports = new BrokerConfigs.Endpoints(9092, 0, 0, 2181);
        Map<String, String> p = BrokerConfigs.serverProperties(KafkaVersions.V2_8_2, 1, ports, DATA, null, Map.of());
        assertThat(p).containsEntry("broker.id", "1")
                .containsEntry("zookeeper.connect", "127.0.0.1:2181")
                .containsEntry("listeners", "PLAINTEXT://127.0.0.1:9092")
                .containsEntry("advertised.listeners", "PLAINTEXT://127.0.0.1:9092")
                .containsEntry("log.dirs", DATA.toString())
                .containsEntry("offsets.topic.replication.factor", "1")
                .doesNotContainKeys("process.roles", "node.id", "controller.quorum.voters");
    }

    @Test
    void brokerOnlyNodeJoinsAnotherNodesQuorumWithoutAControllerListener() {
        var ports = new BrokerConfigs.Endpoints(9094, 9095, 0, 0);
        Map<String, String> combined = BrokerConfigs.serverProperties(KafkaVersions.V4_4_0, 2, ports, DATA, null, Map.of());
        Map<String, String> p = BrokerConfigs.brokerOnly(combined, "1@127.0.0.1:9093");
        assertThat(p).containsEntry("process.roles", "broker")
                .containsEntry("node.id", "2")
                .containsEntry("controller.quorum.voters", "1@127.0.0.1:9093")
                .containsEntry("controller.listener.names", "CONTROLLER")
                .containsEntry("listeners", "PLAINTEXT://127.0.0.1:9094")
                .containsEntry("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    }

    @Test
    void kraftCombinedModeFor3And4() {
        var ports = new BrokerConfigs.Endpoints(9092, 9093, 0, 0);
        for (KafkaVersion v : new KafkaVersion[] {KafkaVersions.V3_4_1, KafkaVersions.V4_4_0}) {
            Map<String, String> p = BrokerConfigs.serverProperties(v, 3, ports, DATA, null, Map.of());
            assertThat(p).containsEntry("process.roles", "broker,controller")
                    .containsEntry("node.id", "3")
                    .containsEntry("controller.quorum.voters", "3@127.0.0.1:9093")
                    .containsEntry("controller.listener.names", "CONTROLLER")
                    .containsEntry("listeners", "PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093")
                    .containsEntry("advertised.listeners", "PLAINTEXT://127.0.0.1:9092")
                    .containsEntry("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT")
                    .doesNotContainKeys("zookeeper.connect", "broker.id");
        }
    }

    @Test
    void everyListenerIsOnLoopback() {
        var ports = new BrokerConfigs.Endpoints(1, 2, 3, 4);
        var tls = new BrokerConfigs.Tls(Path.of("/k.p12"), Path.of("/t.p12"), "pw");
        for (KafkaVersion v : KafkaVersions.SUPPORTED) {
            Map<String, String> p = BrokerConfigs.serverProperties(v, 1, ports, DATA, tls, Map.of());
            for (String key : new String[] {"listeners", "advertised.listeners"}) {
                for (String listener : p.get(key).split(",")) {
                    assertThat(listener).as("%s %s", v, key).contains("://127.0.0.1:");
                }
            }
        }
    }

    @Test
    void sslListenerAndExtraPropertiesWin() {
        var ports = new BrokerConfigs.Endpoints(9092, 9093, 9094, 0);
        var tls = new BrokerConfigs.Tls(Path.of("/k.p12"), Path.of("/t.p12"), "pw");
        Map<String, String> p = BrokerConfigs.serverProperties(KafkaVersions.V3_9_2, 1, ports, DATA, tls,
                Map.of("log.segment.bytes", "1048576", "num.io.threads", "2"));
        assertThat(p.get("listeners")).contains("SSL://127.0.0.1:9094");
        assertThat(p.get("listener.security.protocol.map")).contains("SSL:SSL");
        assertThat(p).containsEntry("ssl.keystore.location", "/k.p12")
                .containsEntry("log.segment.bytes", "1048576")
                .containsEntry("num.io.threads", "2");
    }

    @Test
    void zooKeeperBindsLoopbackWithoutAdminServer() {
        Map<String, String> p = BrokerConfigs.zooKeeperProperties(2181, DATA);
        assertThat(p).containsEntry("clientPortAddress", "127.0.0.1")
                .containsEntry("clientPort", "2181")
                .containsEntry("admin.enableServer", "false");
    }

    @Test
    void renderedFileLoadsBack() throws IOException {
        Map<String, String> in = Map.of("a.b", "c:d=e", "path", "C:\\x\\y", "empty", "");
        Properties loaded = new Properties();
        loaded.load(new StringReader(BrokerConfigs.render(in)));
        assertThat(loaded).containsAllEntriesOf(in).hasSize(3);
    }
}
