package io.stallscope.it.bench;

import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.ProducerPerfResult;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The fetch path at full speed: one consumer in this JVM reads partition 0 of a topic from offset 0 until it has the
 * given number of records, 64 KiB a fetch, so that each fetch makes a lookup in the offset index. Its result in
 * ProducerPerfResult's shape, for the A/B's table: records/s and MB/s; no latencies (NaN).
 */
final class FullSpeedRead {
    private FullSpeedRead() {
    }

    static ProducerPerfResult from(KafkaBroker broker, String topic, long records) {
        Map<String, Object> config = KafkaClients.consumerConfig(broker);
        config.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 65536);
        config.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 65536);
        TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            consumer.position(tp, Duration.ofSeconds(30));
            long start = System.nanoTime();
            long deadline = start + Duration.ofMinutes(10).toNanos();
            long read = 0;
            long bytes = 0;
            while (read < records) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("read only " + read + " of " + records + " records in 10 minutes");
                }
                for (var r : consumer.poll(Duration.ofMillis(500))) {
                    read++;
                    bytes += r.serializedValueSize();
                }
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            return new ProducerPerfResult(read, read / seconds, bytes / seconds / (1 << 20), Double.NaN, Double.NaN,
                Double.NaN, Double.NaN, Double.NaN, Double.NaN);
        }
    }
}
