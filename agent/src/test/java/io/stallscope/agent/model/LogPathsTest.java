package io.stallscope.agent.model;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

class LogPathsTest {
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', nullValues = "null", value = {
        "/var/lib/kafka/orders-7/00000000000000000000.log                      | orders    | 7",
        "/var/lib/kafka/orders-7/00000000000000123456.index                    | orders    | 7",
        "/var/lib/kafka/orders-7/00000000000000123456.timeindex                | orders    | 7",
        "/var/lib/kafka/orders-7/00000000000000123456.snapshot                 | orders    | 7",
        "/var/lib/kafka/orders-7/00000000000000123456.log.deleted              | orders    | 7",
        "/var/lib/kafka/orders-7/00000000000000123456.index.swap               | orders    | 7",
        "/var/lib/kafka/orders-7                                               | orders    | 7",
        "/var/lib/kafka/orders-7/                                              | orders    | 7",
        "/data/my-topic-with-dashes-12/00000000000000000000.log                | my-topic-with-dashes | 12",
        "/data/__consumer_offsets-49/00000000000000000000.log                  | __consumer_offsets | 49",
        "/data/__cluster_metadata-0/00000000000000000000.log                   | __cluster_metadata | 0",
        "/data/orders-3.3b2c0d1e4f5a6b7c8d9e0f1a2b3c4d5e-delete/00000000000000000000.log | orders | 3",
        "/data/orders-3.3b2c0d1e4f5a6b7c8d9e0f1a2b3c4d5e-future                | orders    | 3",
        "/data/orders-3/leader-epoch-checkpoint                                | orders    | 3",
        "remote:orders-3/00000000000000000100-jeO6csgKSyeJVFDQoQOpow.log        | orders    | 3",
        "remote:my-topic-12/00000000000000000100-jeO6csgKSyeJVFDQoQOpow.timeindex | my-topic | 12",
    })
    void readsTopicAndPartition(String path, String topic, int partition) {
        assertThat(LogPaths.topicPartition(path)).isEqualTo(new TopicPartition(topic, partition));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(nullValues = "null", value = {
        "/etc/passwd", "/tmp/foo.log", "null", "''", "/var/lib/kafka/meta.properties",
        "/var/lib/kafka/recovery-point-offset-checkpoint",
    })
    void saysNothingForPathsOutsidePartitions(String path) {
        assertThat(LogPaths.topicPartition(path)).isNull();
    }
}
