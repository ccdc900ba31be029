package io.stallscope.it.tiered;

import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.KafkaClients;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Consumers that each read every partition of a topic from offset 0 until stopped, each on its own thread with its
 * own connection, so their fetches reach the broker at once: consumers catching up from the start of a tiered topic.
 */
final class TimedConsumers implements AutoCloseable {
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicLong records = new AtomicLong();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final List<Thread> threads = new ArrayList<>();

    private TimedConsumers() {
    }

    static TimedConsumers fromOffsetZero(KafkaBroker broker, String topic, int consumers) {
        TimedConsumers c = new TimedConsumers();
        for (int i = 0; i < consumers; i++) {
            Thread t = new Thread(() -> c.read(broker, topic), "consumer-" + topic + "-" + i);
            t.setDaemon(true);
            c.threads.add(t);
            t.start();
        }
        return c;
    }

    private void read(KafkaBroker broker, String topic) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(KafkaClients.consumerConfig(broker))) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            while (!stop.get()) {
                records.addAndGet(consumer.poll(Duration.ofMillis(200)).count());
            }
        } catch (Throwable t) {
            failure.compareAndSet(null, t);
        }
    }

    /** Stops the consumers and returns the records they read; throws what a consumer failed with. */
    long stop() throws InterruptedException {
        close();
        Throwable t = failure.get();
        if (t != null) {
            throw new IllegalStateException("a consumer of the window failed", t);
        }
        return records.get();
    }

    @Override
    public void close() throws InterruptedException {
        stop.set(true);
        for (Thread t : threads) {
            t.join(60_000);
        }
    }
}
