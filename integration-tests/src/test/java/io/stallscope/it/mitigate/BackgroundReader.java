package io.stallscope.it.mitigate;

import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.KafkaClients;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A consumer that keeps re-reading a partition from its start, so fetches read rolled segments (what
 * prefetch warms) while the broker is killed and restarted; it rides out the broker being down.
 */
final class BackgroundReader implements AutoCloseable {
    private final Thread thread;
    private final AtomicLong reads = new AtomicLong();
    private volatile boolean running = true;

    BackgroundReader(KafkaBroker broker, String topic) {
        Map<String, Object> config = new java.util.HashMap<>(KafkaClients.consumerConfig(broker));
        config.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 256 * 1024);
        this.thread = new Thread(() -> run(config, new TopicPartition(topic, 0)), "background-reader");
        thread.setDaemon(true);
        thread.start();
    }

    private void run(Map<String, Object> config, TopicPartition tp) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            while (running) {
                try {
                    int n = consumer.poll(Duration.ofMillis(200)).count();
                    reads.addAndGet(n);
                    if (n == 0) {
                        consumer.seekToBeginning(List.of(tp)); // caught up: read the rolled segments again
                    }
                } catch (RuntimeException e) {
                    // the broker is down or restarting: try again
                }
            }
        }
    }

    long reads() {
        return reads.get();
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.join(10_000);
    }
}
