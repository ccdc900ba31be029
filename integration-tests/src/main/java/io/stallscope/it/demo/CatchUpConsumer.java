package io.stallscope.it.demo;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A consumer that falls far behind and catches up: it reads a topic from its first offset to the end
 * offsets seen when it started, as fast as the broker serves it, then stops. No consumer group.
 */
final class CatchUpConsumer implements AutoCloseable {
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Thread thread;
    private final AtomicLong bytes = new AtomicLong();
    private final long started = System.nanoTime();
    private volatile long finished;
    private volatile String error;

    CatchUpConsumer(Map<String, Object> config, String topic) {
        this.consumer = new KafkaConsumer<>(config);
        this.thread = new Thread(() -> run(topic), "demo-catch-up-consumer");
        thread.setDaemon(true);
        thread.start();
    }

    private void run(String topic) {
        try {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
            consumer.seekToBeginning(partitions);
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    bytes.addAndGet(r.serializedValueSize());
                }
            }
            finished = System.nanoTime();
        } catch (WakeupException e) {
            // closed before it caught up
        } catch (RuntimeException e) {
            error = e.toString();
        }
    }

    long bytesRead() {
        return bytes.get();
    }

    boolean caughtUp() {
        return finished != 0;
    }

    /** Seconds from start to caught up, or so far. */
    double seconds() {
        return ((finished != 0 ? finished : System.nanoTime()) - started) / 1e9;
    }

    String error() {
        return error;
    }

    @Override
    public void close() {
        consumer.wakeup();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        consumer.close(Duration.ofSeconds(5));
    }
}
