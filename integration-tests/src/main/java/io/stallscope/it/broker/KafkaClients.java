package io.stallscope.it.broker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Client-side helpers against a {@link KafkaBroker}, with kafka-clients 3.9.1 (which talks to brokers
 * 2.8 through 4.4), plus Kafka's own ProducerPerformance of the broker's version.
 */
public final class KafkaClients {

    /** Topic configs for frequent rolls: 1 MiB segments. */
    public static final Map<String, String> SMALL_SEGMENTS = Map.of(
            "segment.bytes", "1048576",
            "segment.index.bytes", "1048576");

    private KafkaClients() {
    }

    public static Admin admin(KafkaBroker broker) {
        return Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                AdminClientConfig.CLIENT_ID_CONFIG, "stallscope-admin"));
    }

    /**
     * Creates a topic with replication factor 1 and waits until its leaders serve it: visible in metadata, and every
     * partition answering a ListOffsets from its leader. A KRaft broker publishes a new partition's leader to its
     * metadata cache before its replica manager has made the partition; a producer sending then gets
     * NOT_LEADER_OR_FOLLOWER for its first batches while later ones in flight land, and an idempotent producer then
     * sits on OutOfOrderSequenceException until its delivery timeout (AgentAttachIT, a topic created right after
     * an attach that slowed the partition's creation: its first batch on the log had sequence 126).
     */
    public static void createTopic(KafkaBroker broker, String name, int partitions, Map<String, String> configs) {
        try (Admin admin = admin(broker)) {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1).configs(configs)))
                    .all().get(30, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (true) {
                try {
                    var d = admin.describeTopics(List.of(name)).allTopicNames().get(5, TimeUnit.SECONDS).get(name);
                    if (d != null && d.partitions().size() == partitions
                            && d.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty())) {
                        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
                        for (int p = 0; p < partitions; p++) {
                            latest.put(new TopicPartition(name, p), OffsetSpec.latest());
                        }
                        admin.listOffsets(latest).all().get(5, TimeUnit.SECONDS);
                        return;
                    }
                } catch (ExecutionException | TimeoutException e) {
                    // not visible or not served yet (the admin client retries a retriable error until its own timeout)
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("topic " + name + " has no leaders after 30 s");
                }
                Thread.sleep(100);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot create topic " + name + " on " + broker.bootstrapServers() + ": " + e, e);
        }
    }

    public static Map<String, Object> producerConfig(KafkaBroker broker) {
        Map<String, Object> c = new HashMap<>();
        c.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        c.put(ProducerConfig.ACKS_CONFIG, "all");
        c.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        c.put(ProducerConfig.BATCH_SIZE_CONFIG, 64 * 1024);
        c.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        c.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000);
        c.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        c.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return c;
    }

    /**
     * Sends {@code count} records of {@code size} random (incompressible) bytes with acks=all and
     * returns how many the broker acknowledged; throws if any send failed.
     */
    public static long produce(KafkaBroker broker, String topic, int count, int size) {
        return produce(producerConfig(broker), topic, count, size);
    }

    public static long produce(Map<String, Object> config, String topic, int count, int size) {
        Random random = new Random(count * 31L + size);
        List<Future<RecordMetadata>> acks = new ArrayList<>(count);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
            for (int i = 0; i < count; i++) {
                byte[] value = new byte[size];
                random.nextBytes(value);
                acks.add(producer.send(new ProducerRecord<>(topic, value)));
            }
            producer.flush();
            long acked = 0;
            for (Future<RecordMetadata> f : acks) {
                f.get(60, TimeUnit.SECONDS);
                acked++;
            }
            return acked;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("produce to " + topic + " failed: " + e, e);
        }
    }

    public static Map<String, Object> consumerConfig(KafkaBroker broker) {
        Map<String, Object> c = new HashMap<>();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return c;
    }

    /**
     * Counts the records of all partitions of {@code topic}. With {@code fromBeginning} it reads from the
     * log start up to the end offsets seen when it began and returns as soon as it got there; otherwise it
     * starts at the current end and counts what arrives until {@code timeout}. No consumer group is used.
     */
    public static long consumeAll(KafkaBroker broker, String topic, boolean fromBeginning, Duration timeout) {
        return consumeAll(consumerConfig(broker), topic, fromBeginning, timeout);
    }

    public static long consumeAll(Map<String, Object> config, String topic, boolean fromBeginning, Duration timeout) {
        return consumeAll(config, topic, fromBeginning, timeout, () -> { });
    }

    /**
     * As {@link #consumeAll(Map, String, boolean, Duration)}; {@code positioned} runs once the consumer's
     * position on every partition is fixed (resolved from the broker, not lazily at the first poll), so a
     * caller can produce what a tail consumer must see without guessing how long positioning takes.
     */
    public static long consumeAll(Map<String, Object> config, String topic, boolean fromBeginning, Duration timeout,
                                  Runnable positioned) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
            List<PartitionInfo> infos = consumer.partitionsFor(topic, timeout);
            if (infos == null || infos.isEmpty()) {
                throw new IllegalStateException("topic " + topic + " has no partitions");
            }
            List<TopicPartition> partitions = infos.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
            if (fromBeginning) {
                consumer.seekToBeginning(partitions);
            } else {
                consumer.seekToEnd(partitions);
            }
            partitions.forEach(tp -> consumer.position(tp, timeout));
            positioned.run();
            long count = 0;
            while (System.nanoTime() < deadline) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(200));
                count += records.count();
                if (fromBeginning && reached(consumer, end)) {
                    return count;
                }
            }
            if (fromBeginning) {
                throw new IllegalStateException("consumed only " + count + " records of " + topic + " within "
                        + timeout + "; end offsets " + end);
            }
            return count;
        }
    }

    private static boolean reached(KafkaConsumer<?, ?> consumer, Map<TopicPartition, Long> end) {
        Set<TopicPartition> tps = end.keySet();
        for (TopicPartition tp : tps) {
            if (consumer.position(tp) < end.get(tp)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Runs {@code org.apache.kafka.tools.ProducerPerformance} of the broker's own version in a child JVM
     * against the broker (acks=all) and returns its parsed summary line.
     *
     * @param throughput records/sec limit, or -1 for none
     */
    public static ProducerPerfResult producerPerformance(KafkaBroker broker, String topic, long numRecords, int recordSize,
                                                         int throughput, Map<String, String> producerProps, Duration timeout) {
        List<String> args = new ArrayList<>(List.of("--topic", topic, "--num-records", Long.toString(numRecords),
                "--record-size", Integer.toString(recordSize), "--throughput", Integer.toString(throughput),
                "--producer-props", "bootstrap.servers=" + broker.bootstrapServers(), "acks=all"));
        producerProps.forEach((k, v) -> args.add(k + "=" + v));
        KafkaBroker.ToolResult r = broker.runTool("org.apache.kafka.tools.ProducerPerformance", args, timeout);
        if (!r.succeeded()) {
            throw new IllegalStateException("ProducerPerformance exited with " + r.exitCode() + ":\n" + r.output());
        }
        return ProducerPerfResult.parseOutput(r.output());
    }
}
