package io.stallscope.testcontainers;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A backlog: records written as fast as the broker takes them (large batches, acks=1) to partition 0, for a
 * {@link CatchUpConsumer} to read later, e.g. once {@link PageCacheEviction} made it cold.
 */
public final class Backlog {
    private Backlog() {
    }

    /** Writes {@code bytes} of 1 KiB records to partition 0 of {@code topic}; returns the records written. */
    public static long write(String bootstrapServers, String topic, long bytes) {
        if (bytes < 1024) {
            throw new IllegalArgumentException("bytes must be at least 1024 (one record), not " + bytes);
        }
        Map<String, Object> c = new HashMap<>();
        c.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, Objects.requireNonNull(bootstrapServers, "bootstrapServers"));
        c.put(ProducerConfig.ACKS_CONFIG, "1");
        c.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        c.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        long records = bytes / 1024;
        byte[] value = new byte[1024];
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(c, new ByteArraySerializer(), new ByteArraySerializer())) {
            java.util.concurrent.Future<?> last = null;
            for (long i = 0; i < records; i++) {
                last = p.send(new ProducerRecord<>(topic, 0, null, value));
            }
            p.flush();
            last.get(5, TimeUnit.MINUTES);
            p.close(Duration.ofSeconds(30));
        } catch (ExecutionException e) {
            throw new IllegalStateException("writing the backlog to " + topic + " failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("the backlog to " + topic + " was not acknowledged within 5 minutes", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return records;
    }
}
