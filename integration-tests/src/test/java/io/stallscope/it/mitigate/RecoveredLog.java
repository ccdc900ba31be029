package io.stallscope.it.mitigate;

import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.KafkaClients;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What a consumer reads of partition 0 after a recovery, from offset 0 towards the end offset, and where it
 * stopped if it could not get there in time: unlike {@link LogContents} a stall is a result to report (after a
 * power cut, past the recovery point), not only a failure.
 */
record RecoveredLog(List<Long> sequences, long endOffset, long stoppedAt) {

    boolean complete() {
        return stoppedAt >= endOffset;
    }

    /** Reads until the end offset or until the consumer made no progress for {@code stall}. */
    static RecoveredLog read(KafkaBroker broker, String topic, Duration stall) {
        TopicPartition tp = new TopicPartition(topic, 0);
        List<Long> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(KafkaClients.consumerConfig(broker))) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp), Duration.ofSeconds(60)).get(tp);
            long lastProgress = System.nanoTime();
            long position = consumer.position(tp);
            while (position < end && System.nanoTime() - lastProgress < stall.toNanos()) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    out.add(SequencedProducer.seqOf(r.value()));
                }
                long now = consumer.position(tp);
                if (now > position) {
                    position = now;
                    lastProgress = System.nanoTime();
                }
            }
            return new RecoveredLog(out, end, position);
        }
    }
}
