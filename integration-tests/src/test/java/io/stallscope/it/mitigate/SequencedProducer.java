package io.stallscope.it.mitigate;

import io.stallscope.it.broker.FixedRate;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;

/**
 * One idempotent producer (acks=all) sending numbered records at a steady rate for the whole test, across
 * broker kills and restarts: it remembers which numbers the broker acknowledged and every send that
 * failed (an OutOfOrderSequenceException would mean the broker lost producer state).
 */
final class SequencedProducer implements AutoCloseable {
    private final KafkaProducer<byte[], byte[]> producer;
    private final String topic;
    private final int recordsPerSecond;
    private final int recordBytes;
    private final BiConsumer<Long, RecordMetadata> onAck;
    private final boolean keyed;
    private final Thread thread;
    private final ConcurrentSkipListSet<Long> acked = new ConcurrentSkipListSet<>();
    private final List<Exception> failures = new CopyOnWriteArrayList<>();
    private final AtomicLong sent = new AtomicLong();
    private volatile boolean running = true;

    SequencedProducer(Map<String, Object> config, String topic, int recordsPerSecond) {
        this(config, topic, recordsPerSecond, 512, (seq, md) -> { });
    }

    /** With records of {@code recordBytes} (at least 8), and {@code onAck} told where each acknowledged record went. */
    SequencedProducer(Map<String, Object> config, String topic, int recordsPerSecond, int recordBytes,
                      BiConsumer<Long, RecordMetadata> onAck) {
        this(config, topic, recordsPerSecond, recordBytes, onAck, false);
    }

    /** As above; {@code keyed}: each record keyed by its number (a compacted topic refuses records without a key). */
    SequencedProducer(Map<String, Object> config, String topic, int recordsPerSecond, int recordBytes,
                      BiConsumer<Long, RecordMetadata> onAck, boolean keyed) {
        Map<String, Object> c = new java.util.HashMap<>(config);
        c.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        c.put(ProducerConfig.ACKS_CONFIG, "all");
        // the broker is down for seconds at a time: retry through it rather than fail
        c.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 300_000);
        c.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000);
        c.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 300_000);
        this.producer = new KafkaProducer<>(c);
        this.topic = topic;
        this.recordsPerSecond = recordsPerSecond;
        this.recordBytes = recordBytes;
        this.onAck = onAck;
        this.keyed = keyed;
        this.thread = new Thread(this::run, "sequenced-producer");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        Random random = new Random(1);
        FixedRate rate = new FixedRate(recordsPerSecond);
        for (long seq = 0; running && rate.awaitSend(seq); seq++) {
            byte[] value = new byte[recordBytes];
            random.nextBytes(value);
            ByteBuffer.wrap(value).putLong(seq);
            long n = seq;
            try {
                byte[] key = keyed ? ByteBuffer.allocate(Long.BYTES).putLong(seq).array() : null;
                producer.send(new ProducerRecord<>(topic, key, value), (md, e) -> {
                    if (e == null) {
                        onAck.accept(n, md);
                        acked.add(n);
                    } else {
                        failures.add(e);
                    }
                });
                sent.incrementAndGet();
            } catch (Exception e) {
                failures.add(e);
            }
        }
    }

    static long seqOf(byte[] value) {
        return ByteBuffer.wrap(value).getLong();
    }

    long ackedCount() {
        return acked.size();
    }

    ConcurrentSkipListSet<Long> acked() {
        return acked;
    }

    List<Exception> failures() {
        return failures;
    }

    /**
     * Stops sending and waits for every record in flight to be acknowledged or failed: at most 2 minutes (the
     * producer's delivery timeout), then what is still in flight fails. Unbounded, a batch the leader keeps refusing
     * (OUT_OF_ORDER_SEQUENCE_NUMBER after a power cut, seen once in PowerCutClusterIT, retried for minutes) held the
     * test until its 45-minute timeout.
     */
    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.join(10_000);
        producer.close(java.time.Duration.ofMinutes(2));
    }
}
