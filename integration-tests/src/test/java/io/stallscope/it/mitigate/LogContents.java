package io.stallscope.it.mitigate;

import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.KafkaClients;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Everything partition 0 of a topic holds, read from the log start to the end offset. */
final class LogContents {
    private LogContents() {
    }

    /** The sequence numbers of the records, in log order. */
    static List<Long> sequences(KafkaBroker broker, String topic, Duration timeout) {
        TopicPartition tp = new TopicPartition(topic, 0);
        List<Long> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(KafkaClients.consumerConfig(broker))) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp), timeout).get(tp);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (consumer.position(tp) < end) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("read only up to offset " + consumer.position(tp) + " of " + end);
                }
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    out.add(SequencedProducer.seqOf(r.value()));
                }
            }
        }
        return out;
    }

    static Map<String, String> topicConfig() {
        return KafkaClients.SMALL_SEGMENTS;
    }
}
