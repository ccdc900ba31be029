package io.stallscope.agent.holes;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Kafka's partition directory names, topics with dots and dashes included, and the ones it sets aside. */
class PartitionDirsTest {
    @Test
    void partitionsAndTopicsAsKafkaNamesThem() {
        assertThat(PartitionDirs.partitionOf("orders-3")).isEqualTo("orders-3");
        assertThat(PartitionDirs.topicOf("my.topic-with-dashes-12")).isEqualTo("my.topic-with-dashes");
        assertThat(PartitionDirs.partitionOf("my.topic-0.8a1c27e5f2b84d0f9a3b1c2d3e4f5a6b-delete")).isEqualTo("my.topic-0");
        assertThat(PartitionDirs.partitionOf("orders-3.8a1c27e5f2b84d0f9a3b1c2d3e4f5a6b-future")).isEqualTo("orders-3");
        assertThat(PartitionDirs.partitionOf("lost+found")).isNull();
        assertThat(PartitionDirs.partitionOf("orders-")).isNull();
        assertThat(PartitionDirs.partitionOf("-3")).isNull();
    }

    @Test
    void whatCannotBeJudged() {
        assertThat(HoleRule.unverifiable("orders-3", false)).isNull();
        assertThat(HoleRule.unverifiable("orders-3", true)).startsWith("compacted");
        assertThat(HoleRule.unverifiable("__cluster_metadata-0", false)).contains("__cluster_metadata");
        assertThat(HoleRule.unverifiable("orders-3.8a1c27e5f2b84d0f9a3b1c2d3e4f5a6b-stray", false)).contains("stray");
        assertThat(HoleRule.unverifiable("lost+found", false)).isEqualTo("not a partition directory");
    }
}
