package io.stallscope.it.demo;

import io.stallscope.it.broker.FixedRate;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A producer on its own thread sending records of random bytes at a fixed rate, keeping each record's
 * acknowledgement latency when given a {@link LatencyLog}: the steady load whose latency the demo
 * reports, and the batch job whose writes roll segments.
 */
final class PacedProducer implements AutoCloseable {
    private final KafkaProducer<byte[], byte[]> producer;
    private final Thread thread;
    private final AtomicLong acked = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private volatile String lastError;
    private volatile boolean running = true;

    PacedProducer(Map<String, Object> config, String topic, int recordsPerSecond, int recordSize, LatencyLog log) {
        this.producer = new KafkaProducer<>(config);
        byte[] value = new byte[recordSize];
        new Random(recordSize * 31L + recordsPerSecond).nextBytes(value);
        this.thread = new Thread(() -> run(topic, recordsPerSecond, value, log), "demo-" + topic + "-producer");
        thread.setDaemon(true);
        thread.start();
    }

    private void run(String topic, int recordsPerSecond, byte[] value, LatencyLog log) {
        FixedRate rate = new FixedRate(recordsPerSecond);
        try {
            for (long i = 0; running && rate.awaitSend(i); i++) {
                long sentAt = System.nanoTime();
                producer.send(new ProducerRecord<>(topic, value), (md, e) -> {
                    if (e != null) {
                        failed.incrementAndGet();
                        lastError = e.toString();
                    } else {
                        acked.incrementAndGet();
                        if (log != null) {
                            log.add(sentAt, System.nanoTime() - sentAt);
                        }
                    }
                });
            }
        } catch (RuntimeException e) {
            // the producer was closed under us (Ctrl-C) or the broker went away
            failed.incrementAndGet();
            lastError = e.toString();
        }
    }

    long acked() {
        return acked.get();
    }

    long failed() {
        return failed.get();
    }

    String lastError() {
        return lastError;
    }

    /** Stops sending, waits for what is in flight (up to 30 s). */
    @Override
    public void close() {
        running = false;
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        producer.close(Duration.ofSeconds(30));
    }
}
