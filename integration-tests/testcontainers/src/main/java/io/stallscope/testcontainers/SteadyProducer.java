package io.stallscope.testcontainers;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A producer at a steady rate to partition 0 of a topic, timing every send to its acknowledgement in its own
 * HdrHistogram: what the application would see, next to what the agent saw inside the broker. Sends are
 * paced against the schedule, not the previous send, so a stalled broker does not slow the offered load
 * (no coordinated omission). {@link #latencies()} is the histogram since the previous call, so a test takes
 * one before and one during a condition.
 */
public final class SteadyProducer implements AutoCloseable {
    private static final long MAX_LATENCY_NANOS = Duration.ofMinutes(5).toNanos();

    private final KafkaProducer<byte[], byte[]> producer;
    private final String topic;
    private final byte[] value;
    private final long periodNanos;
    private final Recorder recorder = new Recorder(MAX_LATENCY_NANOS, 3);
    private final AtomicLong acknowledged = new AtomicLong();
    private final AtomicReference<Exception> failure = new AtomicReference<>();
    private final Thread thread;
    private volatile boolean running = true;
    private Histogram interval;

    private SteadyProducer(String bootstrapServers, String topic, int recordsPerSecond, int recordBytes, Map<String, Object> config) {
        if (recordsPerSecond < 1 || recordsPerSecond > 1_000_000) {
            throw new IllegalArgumentException("recordsPerSecond must be 1 to 1000000, not " + recordsPerSecond);
        }
        if (recordBytes < 0) {
            throw new IllegalArgumentException("recordBytes must be 0 or more, not " + recordBytes);
        }
        Map<String, Object> c = new HashMap<>();
        c.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, Objects.requireNonNull(bootstrapServers, "bootstrapServers"));
        c.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        c.put(ProducerConfig.ACKS_CONFIG, "all");
        c.putAll(config);
        this.producer = new KafkaProducer<>(c, new ByteArraySerializer(), new ByteArraySerializer());
        this.topic = Objects.requireNonNull(topic, "topic");
        this.value = new byte[recordBytes];
        this.periodNanos = 1_000_000_000L / recordsPerSecond;
        this.thread = new Thread(this::run, "stallscope-steady-producer-" + topic);
        this.thread.setDaemon(true);
    }

    /** Starts sending {@code recordsPerSecond} records of {@code recordBytes} (acks=all, linger 0). */
    public static SteadyProducer start(String bootstrapServers, String topic, int recordsPerSecond, int recordBytes) {
        return start(bootstrapServers, topic, recordsPerSecond, recordBytes, Map.of());
    }

    /** As {@link #start(String, String, int, int)}, with producer settings over the defaults (e.g. acks=1). */
    public static SteadyProducer start(String bootstrapServers, String topic, int recordsPerSecond, int recordBytes,
                                       Map<String, Object> producerConfig) {
        SteadyProducer p = new SteadyProducer(bootstrapServers, topic, recordsPerSecond, recordBytes, producerConfig);
        p.thread.start();
        return p;
    }

    private void run() {
        long next = System.nanoTime();
        while (running) {
            long scheduled = next;
            try {
                producer.send(new ProducerRecord<>(topic, 0, null, value), (m, e) -> {
                    if (e != null) {
                        failure.compareAndSet(null, e);
                        return;
                    }
                    recorder.recordValue(Math.min(System.nanoTime() - scheduled, MAX_LATENCY_NANOS));
                    acknowledged.incrementAndGet();
                });
            } catch (RuntimeException e) {
                failure.compareAndSet(null, e);
                return;
            }
            next += periodNanos;
            long sleep = next - System.nanoTime();
            if (sleep > 0) {
                java.util.concurrent.locks.LockSupport.parkNanos(sleep);
            }
        }
    }

    /** Send-to-acknowledgement latencies in nanoseconds since the previous call (or the start). */
    public synchronized Histogram latencies() {
        requireNoFailure();
        interval = recorder.getIntervalHistogram(interval);
        return interval.copy();
    }

    /** Records acknowledged so far. */
    public long acknowledged() {
        return acknowledged.get();
    }

    /** Waits until this many more records than now are acknowledged, or fails after the timeout. */
    public void awaitAcknowledged(long more, Duration timeout) throws InterruptedException {
        long target = acknowledged.get() + more;
        long deadline = System.nanoTime() + timeout.toNanos();
        while (acknowledged.get() < target) {
            requireNoFailure();
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the steady producer to " + topic + " had " + acknowledged.get() + " of "
                        + target + " records acknowledged after " + timeout + ": is the broker up and the topic there?");
            }
            Thread.sleep(10);
        }
    }

    private void requireNoFailure() {
        Exception e = failure.get();
        if (e != null) {
            throw new IllegalStateException("the steady producer to " + topic + " failed: " + e, e);
        }
    }

    /** Stops sending, waits for what was sent to be acknowledged, closes the producer. */
    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.join(10_000);
        producer.close(Duration.ofSeconds(30));
    }
}
