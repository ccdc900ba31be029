package io.stallscope.it.capture;

import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.KafkaClients;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Several producer clients (one thread each, acks=1, no batching delay) writing to one partition, so
 * their produce requests reach different request handlers and queue on that partition's log lock.
 */
final class StallProducers implements AutoCloseable {
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicLong acked = new AtomicLong();
    private final AtomicReference<Exception> failure = new AtomicReference<>();
    private final List<Thread> threads = new ArrayList<>();

    StallProducers(KafkaBroker broker, String topic, int clients) {
        for (int i = 0; i < clients; i++) {
            Map<String, Object> config = KafkaClients.producerConfig(broker);
            config.put(ProducerConfig.ACKS_CONFIG, "1");
            config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
            config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
            config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
            config.put(ProducerConfig.CLIENT_ID_CONFIG, "stall-producer-" + i);
            Thread t = new Thread(() -> run(config, topic), "stall-producer-" + i);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
    }

    private void run(Map<String, Object> config, String topic) {
        byte[] value = new byte[2048];
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
            while (!stop.get()) {
                producer.send(new ProducerRecord<>(topic, 0, null, value)).get();
                acked.incrementAndGet();
            }
        } catch (Exception e) {
            if (!stop.get()) {
                failure.set(e);
            }
        }
    }

    long acked() {
        return acked.get();
    }

    @Override
    public void close() throws Exception {
        stop.set(true);
        for (Thread t : threads) {
            t.join(30_000);
        }
        if (failure.get() != null) {
            throw failure.get();
        }
    }
}
