package io.stallscope.it.mitigate;

import io.stallscope.it.broker.FixedRate;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/** A steady producer (fixed rate, acks=all) that keeps each record's send time and latency. */
public final class LatencyProducer implements AutoCloseable {
    /** Send time and acknowledgement latency of one record, in nanoseconds. */
    record Sample(long sentAt, long latency) {
    }

    private final KafkaProducer<byte[], byte[]> producer;
    private final List<Sample> samples = new ArrayList<>();
    private final Thread thread;
    private volatile boolean running = true;

    public LatencyProducer(Map<String, Object> config, String topic, int recordsPerSecond) {
        Map<String, Object> c = new java.util.HashMap<>(config);
        c.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        this.producer = new KafkaProducer<>(c);
        this.thread = new Thread(() -> {
            byte[] value = new byte[1024];
            FixedRate rate = new FixedRate(recordsPerSecond);
            for (long i = 0; running && rate.awaitSend(i); i++) {
                long sentAt = System.nanoTime();
                producer.send(new ProducerRecord<>(topic, value), (md, e) -> {
                    if (e == null) {
                        synchronized (samples) {
                            samples.add(new Sample(sentAt, System.nanoTime() - sentAt));
                        }
                    }
                });
            }
        }, "latency-producer");
        thread.setDaemon(true);
        thread.start();
    }

    /** The given quantile (0.999 = p99.9; 1 = max) of latencies of records sent in [from, to), in ms. */
    public double quantileMs(long from, long to, double q) {
        long[] v = latencies(from, to);
        if (v.length == 0) {
            return Double.NaN;
        }
        return v[Math.min(v.length - 1, (int) Math.ceil(q * v.length) - 1)] / 1e6;
    }

    /** The n slowest records sent in [from, to): "latency ms @ seconds after from", slowest first. */
    public List<String> slowest(long from, long to, int n) {
        List<Sample> v;
        synchronized (samples) {
            v = new ArrayList<>(samples.stream().filter(s -> s.sentAt() >= from && s.sentAt() < to).toList());
        }
        v.sort((a, b) -> Long.compare(b.latency(), a.latency()));
        return v.stream().limit(n).map(s -> String.format("%.0f@%.3f", s.latency() / 1e6, (s.sentAt() - from) / 1e9)).toList();
    }

    /** The records sent in [from, to), in the order they were acknowledged. */
    List<Sample> samples(long from, long to) {
        synchronized (samples) {
            return samples.stream().filter(s -> s.sentAt() >= from && s.sentAt() < to).toList();
        }
    }

    /** How many records sent in [from, to) were acknowledged. */
    int count(long from, long to) {
        return latencies(from, to).length;
    }

    /** How many records sent in [from, to) took at least {@code ms} to be acknowledged. */
    public int countAtLeastMs(long from, long to, double ms) {
        return (int) java.util.Arrays.stream(latencies(from, to)).filter(l -> l >= ms * 1e6).count();
    }

    /** Latencies (ns, sorted) of the records sent in [from, to). */
    public long[] latencies(long from, long to) {
        long[] v;
        synchronized (samples) {
            v = samples.stream().filter(s -> s.sentAt() >= from && s.sentAt() < to).mapToLong(Sample::latency).toArray();
        }
        Arrays.sort(v);
        return v;
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.join(5000);
        producer.close();
    }
}
