package io.stallscope.it.demo;

import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.util.HashMap;
import java.util.Map;

/** Client settings for the demo's producers, consumer and admin, against any bootstrap address. */
final class ClientConfigs {
    private ClientConfigs() {
    }

    static Map<String, Object> admin(String bootstrap) {
        Map<String, Object> c = new HashMap<>();
        c.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(AdminClientConfig.CLIENT_ID_CONFIG, "stallscope-demo-admin");
        c.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
        return c;
    }

    /** acks=all, no batching delay: each record's latency is the broker's answer time. */
    static Map<String, Object> latencyProducer(String bootstrap, String clientId) {
        Map<String, Object> c = new HashMap<>();
        c.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        c.put(ProducerConfig.ACKS_CONFIG, "all");
        c.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        c.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        c.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000);
        c.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        c.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return c;
    }

    /** Batches of 256 KiB: for writing volume (the backlog, the batch job), not for measuring. */
    static Map<String, Object> bulkProducer(String bootstrap, String clientId) {
        Map<String, Object> c = latencyProducer(bootstrap, clientId);
        c.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        c.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        c.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 64L << 20);
        return c;
    }

    static Map<String, Object> consumer(String bootstrap, String clientId) {
        Map<String, Object> c = new HashMap<>();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return c;
    }
}
