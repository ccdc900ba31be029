package io.stallscope.it.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class KafkaVersionTest {

    @Test
    void parsesAndPrints() {
        KafkaVersion v = KafkaVersion.of(" 3.9.2 ");
        assertThat(v).isEqualTo(new KafkaVersion(3, 9, 2));
        assertThat(v).hasToString("3.9.2");
    }

    @Test
    void rejectsNonVersions() {
        assertThatThrownBy(() -> KafkaVersion.of("3.9")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("3.9");
        assertThatThrownBy(() -> KafkaVersion.of("3.9.x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> KafkaVersion.of("4.0.0-rc1")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void ordersNumerically() {
        assertThat(KafkaVersion.of("3.10.0")).isGreaterThan(KafkaVersion.of("3.9.2"));
        assertThat(KafkaVersion.of("4.0.0")).isGreaterThan(KafkaVersion.of("3.99.99"));
        assertThat(KafkaVersion.of("2.8.2").isAtLeast(2, 8, 2)).isTrue();
        assertThat(KafkaVersion.of("2.8.2").isAtLeast(2, 8, 3)).isFalse();
    }

    @Test
    void modesPerVersion() {
        assertThat(KafkaVersions.V2_8_2.usesZooKeeper()).isTrue();
        assertThat(KafkaVersions.V3_4_1.usesKRaft()).isTrue();
        assertThat(KafkaVersions.V3_9_2.usesLog4j2()).isFalse();
        assertThat(KafkaVersions.V4_0_2.usesLog4j2()).isTrue();
        assertThat(KafkaVersions.V2_8_2.readyLogLine()).isEqualTo("started (kafka.server.KafkaServer)");
        assertThat(KafkaVersions.V4_4_0.readyLogLine()).isEqualTo("Kafka Server started (kafka.server.KafkaRaftServer)");
        assertThat(KafkaVersions.V3_4_1.consumerPerformanceClass()).isEqualTo("kafka.tools.ConsumerPerformance");
        assertThat(KafkaVersions.V3_6_2.consumerPerformanceClass()).isEqualTo("org.apache.kafka.tools.ConsumerPerformance");
    }

    @Test
    void versionListsAndOverride() {
        assertThat(KafkaVersions.SUPPORTED).containsAll(KafkaVersions.TESTED).isSorted();
        assertThat(KafkaVersions.parseList("4.4.0, 2.8.2,,")).containsExactly(KafkaVersions.V4_4_0, KafkaVersions.V2_8_2);
    }
}
