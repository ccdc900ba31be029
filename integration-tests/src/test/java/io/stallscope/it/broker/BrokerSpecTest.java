package io.stallscope.it.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;

class BrokerSpecTest {

    @Test
    void splitsKafkaOptsLikeAShell() {
        assertThat(BrokerSpec.splitOpts("  -Da=b   -javaagent:/x/a.jar=k=v,m=n \"-Dq=with space\" ''"))
                .containsExactly("-Da=b", "-javaagent:/x/a.jar=k=v,m=n", "-Dq=with space", "");
        assertThat(BrokerSpec.splitOpts(null)).isEmpty();
        assertThatThrownBy(() -> BrokerSpec.splitOpts("-Da='b")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void builderCollectsEverything() {
        BrokerSpec spec = BrokerSpec.builder("4.4.0")
                .javaAgent(Path.of("/a/agent.jar"), "mode=stall")
                .kafkaOpts("-Dx=1 -Dy=2")
                .env("LD_PRELOAD", "/lib/shim.so")
                .serverProperty("log.segment.bytes", "1048576")
                .nodeId(7)
                .heap("1g")
                .name("demo")
                .build();
        assertThat(spec.version()).isEqualTo(KafkaVersions.V4_4_0);
        assertThat(spec.jvmArgs()).containsExactly("-javaagent:/a/agent.jar=mode=stall", "-Dx=1", "-Dy=2");
        assertThat(spec.env()).containsEntry("LD_PRELOAD", "/lib/shim.so");
        assertThat(spec.serverProperties()).containsEntry("log.segment.bytes", "1048576");
        assertThat(spec.nodeId()).isEqualTo(7);
        assertThat(spec.heap()).isEqualTo("1g");
        assertThat(spec.toBuilder().build().jvmArgs()).isEqualTo(spec.jvmArgs());
        assertThat(BrokerSpec.builder("3.9.2").build().heap()).isEqualTo("512m");
    }

    @Test
    void startTimeoutDefaultsTo60sUnlessOverridden() {
        String old = System.getProperty(BrokerSpec.START_TIMEOUT_PROPERTY);
        try {
            System.clearProperty(BrokerSpec.START_TIMEOUT_PROPERTY);
            assertThat(BrokerSpec.builder("3.9.2").build().startTimeout()).hasSeconds(60);
            System.setProperty(BrokerSpec.START_TIMEOUT_PROPERTY, "90");
            assertThat(BrokerSpec.builder("3.9.2").build().startTimeout()).hasSeconds(90);
        } finally {
            if (old != null) System.setProperty(BrokerSpec.START_TIMEOUT_PROPERTY, old);
            else System.clearProperty(BrokerSpec.START_TIMEOUT_PROPERTY);
        }
    }

    @Test
    void rejectsBadValues() {
        assertThatThrownBy(() -> BrokerSpec.builder("3.9.2").heap("lots")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> BrokerSpec.builder("3.9.2").name("a/b")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> BrokerSpec.builder("3.9.2").nodeId(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void onlyAZooKeeperBrokerJoinsAnotherOnesZooKeeper() {
        BrokerSpec spec = BrokerSpec.builder("2.8.2").nodeId(2).joinZooKeeper("127.0.0.1:2181").build();
        assertThat(spec.zooKeeperConnect()).isEqualTo("127.0.0.1:2181");
        assertThat(spec.toBuilder().build().zooKeeperConnect()).isEqualTo("127.0.0.1:2181");
        assertThat(BrokerSpec.builder("2.8.2").build().zooKeeperConnect()).isNull();
        assertThatThrownBy(() -> BrokerSpec.builder("3.6.2").joinZooKeeper("127.0.0.1:2181").build())
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ZooKeeper");
    }
}
