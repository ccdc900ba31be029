package io.stallscope.it.realdisk;

import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.KafkaClients;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

/**
 * Readers of a backlog's old segments, each request a lookup in an index nobody read lately: fetchers seeking to random
 * old offsets (the offset index, then 16 KiB of the log) and one consumer asking offsetsForTimes of random timestamps
 * in the backlog (the time index, then the offset index). Daemon threads, until closed; errors (a timeout on the slow
 * disk) are counted and the reader goes on.
 */
final class ColdReaders implements AutoCloseable {
    static final int FETCHERS = 4;

    record Counts(long fetches, long timeLookups, long errors) {
    }

    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong fetches = new AtomicLong();
    private final AtomicLong timeLookups = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final List<Thread> threads = new ArrayList<>();

    private ColdReaders() {
    }

    /** Starts the readers of partitions 0..partitions-1 of the topic, whose records were written in [fromMs, toMs]. */
    static ColdReaders start(KafkaBroker broker, String topic, int partitions, long fromMs, long toMs) {
        ColdReaders r = new ColdReaders();
        for (int i = 0; i < FETCHERS; i++) {
            r.spawn("cold-fetcher-" + i, () -> r.fetch(broker, topic, partitions));
        }
        r.spawn("cold-time-lookups", () -> r.lookUpTimes(broker, topic, partitions, fromMs, toMs));
        return r;
    }

    private void spawn(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
        threads.add(t);
    }

    Counts counts() {
        return new Counts(fetches.get(), timeLookups.get(), errors.get());
    }

    private void fetch(KafkaBroker broker, String topic, int partitions) {
        Map<String, Object> config = KafkaClients.consumerConfig(broker);
        config.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 16384);
        config.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 16384);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
            // the backlog is written before the readers start and nothing is added to it: its offsets are asked once
            List<TopicPartition> all = IntStream.range(0, partitions).mapToObj(p -> new TopicPartition(topic, p)).toList();
            Map<TopicPartition, Long> begins = consumer.beginningOffsets(all, Duration.ofSeconds(30));
            Map<TopicPartition, Long> ends = consumer.endOffsets(all, Duration.ofSeconds(30));
            while (running.get()) {
                try {
                    TopicPartition tp = all.get(ThreadLocalRandom.current().nextInt(partitions));
                    consumer.assign(List.of(tp));
                    long begin = begins.get(tp);
                    long end = ends.get(tp);
                    // short of the log's end: the active segment's index is warm
                    consumer.seek(tp, begin + ThreadLocalRandom.current().nextLong(Math.max(1, (end - begin) * 9 / 10)));
                    long deadline = System.nanoTime() + 10_000_000_000L;
                    while (running.get() && System.nanoTime() < deadline && consumer.poll(Duration.ofMillis(200)).isEmpty()) {
                        // the fetch is in flight on the slow disk
                    }
                    fetches.incrementAndGet();
                } catch (RuntimeException e) {
                    errors.incrementAndGet();
                }
            }
        }
    }

    private void lookUpTimes(KafkaBroker broker, String topic, int partitions, long fromMs, long toMs) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(KafkaClients.consumerConfig(broker))) {
            while (running.get()) {
                try {
                    TopicPartition tp = new TopicPartition(topic, ThreadLocalRandom.current().nextInt(partitions));
                    long at = fromMs + ThreadLocalRandom.current().nextLong(Math.max(1, toMs - fromMs));
                    consumer.offsetsForTimes(Map.of(tp, at), Duration.ofSeconds(30));
                    timeLookups.incrementAndGet();
                } catch (RuntimeException e) {
                    errors.incrementAndGet();
                }
            }
        }
    }

    @Override
    public void close() throws InterruptedException {
        running.set(false);
        for (Thread t : threads) {
            t.join(40_000);
        }
    }
}
