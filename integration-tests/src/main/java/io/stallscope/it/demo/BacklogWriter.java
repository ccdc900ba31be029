package io.stallscope.it.demo;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/** Writes a topic's history as fast as the broker takes it: the backlog a late consumer will read. */
final class BacklogWriter {
    private static final int RECORD = 1024;

    private BacklogWriter() {
    }

    /** Writes {@code mib} MiB of 1 KiB records of random bytes and waits until all are acknowledged. */
    static void write(Map<String, Object> config, String topic, int mib) {
        Random random = new Random(mib);
        byte[][] values = new byte[64][RECORD];
        for (byte[] v : values) {
            random.nextBytes(v);
        }
        long records = (long) mib * (1 << 20) / RECORD;
        AtomicLong failed = new AtomicLong();
        AtomicReference<Exception> first = new AtomicReference<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
            for (long i = 0; i < records && !Thread.currentThread().isInterrupted(); i++) {
                producer.send(new ProducerRecord<>(topic, values[(int) (i % values.length)]), (md, e) -> {
                    if (e != null && failed.getAndIncrement() == 0) {
                        first.set(e);
                    }
                });
            }
            producer.flush();
        }
        if (failed.get() > 0) {
            throw new IllegalStateException("writing the backlog to " + topic + ": " + failed.get() + " records failed, first: "
                + first.get());
        }
    }
}
