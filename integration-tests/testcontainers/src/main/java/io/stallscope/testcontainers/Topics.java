package io.stallscope.testcontainers;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Creates the topics a stall workload needs, e.g. one whose segments roll every few hundred KiB. */
public final class Topics {
    private Topics() {
    }

    /** A topic with one partition, replication factor 1, and these topic configs. */
    public static void create(String bootstrapServers, String topic, Map<String, String> config) {
        create(bootstrapServers, topic, config, 1);
    }

    /** A topic with one partition of {@code replicationFactor} replicas (a cluster's brokers), and these topic configs. */
    public static void create(String bootstrapServers, String topic, Map<String, String> config, int replicationFactor) {
        if (replicationFactor < 1 || replicationFactor > Short.MAX_VALUE) {
            throw new IllegalArgumentException("replicationFactor must be 1 or more, not " + replicationFactor);
        }
        Map<String, Object> c = new HashMap<>();
        c.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, Objects.requireNonNull(bootstrapServers, "bootstrapServers"));
        try (Admin admin = Admin.create(c)) {
            admin.createTopics(java.util.List.of(new NewTopic(topic, 1, (short) replicationFactor).configs(config))).all().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot create topic " + topic + " at " + bootstrapServers + ": " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("no broker at " + bootstrapServers + " created topic " + topic + " within 60 s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Forced rolls: a topic whose active segment rolls every {@code segmentBytes} (at least 1 MiB, the least
     * Kafka 4 accepts for a topic), so a steady producer rolls it every few seconds.
     */
    public static void createRollingEvery(String bootstrapServers, String topic, int segmentBytes) {
        if (segmentBytes < 1024 * 1024) {
            throw new IllegalArgumentException("segmentBytes must be at least 1048576 (Kafka refuses less for a topic), not " + segmentBytes);
        }
        create(bootstrapServers, topic, Map.of("segment.bytes", Integer.toString(segmentBytes)));
    }
}
