package io.stallscope.testcontainers;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * A consumer that reads a topic from offset 0 up to the end offsets it saw when it started: the lagging
 * reader whose fetches of old, cold segments make the broker's network threads read from disk
 * ({@code transfer_to}). No group: partitions are assigned, nothing is committed.
 */
public final class CatchUpConsumer {
    private CatchUpConsumer() {
    }

    /** What one catch-up read: records and how long it took. */
    public static final class Result {
        private final long records;
        private final Duration took;

        Result(long records, Duration took) {
            this.records = records;
            this.took = took;
        }

        public long records() {
            return records;
        }

        public Duration took() {
            return took;
        }

        @Override
        public String toString() {
            return records + " records in " + took.toMillis() + " ms";
        }
    }

    /** Reads every partition of {@code topic} from offset 0 to its current end; fails after {@code timeout}. */
    public static Result readFromStart(String bootstrapServers, String topic, Duration timeout) {
        Map<String, Object> c = new HashMap<>();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, Objects.requireNonNull(bootstrapServers, "bootstrapServers"));
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 1 << 20);
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<PartitionInfo> infos = consumer.partitionsFor(topic, timeout);
            if (infos == null || infos.isEmpty()) {
                throw new IllegalStateException("topic " + topic + " has no partitions at " + bootstrapServers + ": produce to it first");
            }
            List<TopicPartition> partitions = infos.stream().map(p -> new TopicPartition(topic, p.partition())).collect(Collectors.toList());
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
            long records = 0;
            while (!reached(consumer, end)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the catch-up read of " + topic + " had " + records + " records after "
                            + timeout + ", short of the end offsets " + end);
                }
                ConsumerRecords<byte[], byte[]> got = consumer.poll(Duration.ofMillis(500));
                records += got.count();
            }
            return new Result(records, Duration.ofNanos(System.nanoTime() - start));
        }
    }

    private static boolean reached(KafkaConsumer<?, ?> consumer, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            if (consumer.position(e.getKey()) < e.getValue()) {
                return false;
            }
        }
        return true;
    }
}
