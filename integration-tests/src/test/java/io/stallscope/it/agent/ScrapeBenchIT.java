package io.stallscope.it.agent;

import io.stallscope.it.bench.LoadAverage;
import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.FreePorts;
import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.KafkaVersion;
import io.stallscope.it.broker.KafkaVersions;
import io.stallscope.it.broker.PrometheusScrape;
import io.stallscope.it.container.BrokerFactory;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Benchmark, not a CI test (-Dstallscope.bench=true; scripts/bench-scrape): what a Prometheus scrape of the agent
 * costs on a broker with many partitions. One broker per arm (-Dstallscope.bench.arms, default
 * "off,on,on-max=4000": topic.labels off, on with the default topic.labels.max, on with a cap of every
 * partition), -Dstallscope.bench.partitions partitions (default 4000, in topics of 200); records produced to and
 * fetched from every partition, so records_append, segment_read and transfer_to occur on each. Per arm: series
 * and bytes of one scrape on the fresh broker and after the traffic, then the wall time of 20 scrapes from
 * 127.0.0.1 after 5 warm-up ones (median, p90, max). Output: target/bench/scrape.md, and each arm's scrape after
 * the traffic in target/bench/scrape-ARM.txt.
 */
@EnabledIfSystemProperty(named = "stallscope.bench", matches = "true")
class ScrapeBenchIT {
    private static final int PARTITIONS = Integer.getInteger("stallscope.bench.partitions", 4000);
    private static final int PER_TOPIC = 200;
    private static final int WARMUP = 5;
    private static final int SCRAPES = 20;
    private static final List<String> ARMS = List.of(System.getProperty("stallscope.bench.arms", "off,on,on-max=4000").split(","));
    private static final KafkaVersion VERSION = KafkaVersion.of(System.getProperty("stallscope.bench.kafka",
        KafkaVersions.V3_9_2.toString()));

    @Test
    @Timeout(value = 60, unit = TimeUnit.MINUTES)
    void scrapeCostWithTopicLabelsOffAndOn() throws Exception {
        Path dir = Path.of(System.getProperty("stallscope.it.target", "target"), "bench").toAbsolutePath();
        Files.createDirectories(dir);
        Path out = dir.resolve("scrape.md");
        Files.writeString(out, "Scrape cost (" + Instant.now() + ", Kafka " + VERSION + ", " + PARTITIONS + " partitions, load "
            + LoadAverage.now() + ")\n\n| arm | agent options | series fresh | series after traffic | bytes after traffic"
            + " | scrape ms median | p90 | max |\n|---|---|---|---|---|---|---|---|\n");
        for (String arm : ARMS) {
            String options = options(arm);
            Arm r = run(options, dir.resolve("scrape-" + arm + ".txt"));
            Files.writeString(out, String.format(Locale.ROOT, "| %s | `%s` | %d | %d | %d | %.1f | %.1f | %.1f |%n", arm, options,
                r.seriesFresh, r.seriesAfter, r.bytesAfter, r.millis[r.millis.length / 2],
                r.millis[(int) Math.ceil(r.millis.length * 0.9) - 1], r.millis[r.millis.length - 1]), StandardOpenOption.APPEND);
        }
        Files.writeString(out, "\nload at end " + LoadAverage.now() + "\n", StandardOpenOption.APPEND);
        System.out.println(Files.readString(out));
    }

    /** "off", "on", "on-max=N" as agent options. */
    static String options(String arm) {
        if (arm.equals("off")) {
            return "topic.labels=false";
        }
        if (arm.equals("on")) {
            return "topic.labels=true";
        }
        if (arm.startsWith("on-max=")) {
            return "topic.labels=true,topic.labels.max=" + Integer.parseInt(arm.substring("on-max=".length()));
        }
        throw new IllegalArgumentException("unknown arm '" + arm + "': off, on or on-max=N");
    }

    record Arm(int seriesFresh, int seriesAfter, int bytesAfter, double[] millis) {
    }

    /** @param kept where the scrape after the traffic is written, to see which op and role pairs occurred */
    private static Arm run(String options, Path kept) throws Exception {
        int port = FreePorts.next();
        BrokerSpec spec = BrokerSpec.builder(VERSION).name("scrape-bench").heap("2g")
            .javaAgent(AgentJar.path(), "prometheus=127.0.0.1:" + port + "," + options)
            .serverProperty("num.partitions", "1")
            .build();
        try (KafkaBroker broker = BrokerFactory.LOCAL.create(spec)) {
            broker.start();
            int seriesFresh = series(get(port));
            List<String> topics = new ArrayList<>();
            for (int t = 0; t * PER_TOPIC < PARTITIONS; t++) {
                String topic = "scrape-bench-" + t;
                KafkaClients.createTopic(broker, topic, Math.min(PER_TOPIC, PARTITIONS - t * PER_TOPIC), Map.of());
                topics.add(topic);
            }
            long records = produceToEveryPartition(broker, topics);
            assertThat(fetchAll(broker, topics)).isEqualTo(records);
            String after = get(port);
            Files.writeString(kept, after);
            PrometheusScrape parsed = PrometheusScrape.parse(after);
            assertThat(parsed.ops("records_append", "request_handler")).isGreaterThanOrEqualTo(records / 2.0);
            for (int i = 0; i < WARMUP; i++) {
                get(port);
            }
            double[] millis = new double[SCRAPES];
            for (int i = 0; i < SCRAPES; i++) {
                long t0 = System.nanoTime();
                get(port);
                millis[i] = (System.nanoTime() - t0) / 1e6;
            }
            Arrays.sort(millis);
            return new Arm(seriesFresh, series(after), after.getBytes(java.nio.charset.StandardCharsets.UTF_8).length, millis);
        }
    }

    private static long produceToEveryPartition(KafkaBroker broker, List<String> topics) throws Exception {
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(KafkaClients.producerConfig(broker))) {
            for (String topic : topics) {
                for (int p = 0; p < PER_TOPIC && acks.size() < PARTITIONS * 2; p++) {
                    for (int i = 0; i < 2; i++) {
                        acks.add(producer.send(new ProducerRecord<>(topic, p, null, new byte[100])));
                    }
                }
            }
            producer.flush();
            for (Future<RecordMetadata> f : acks) {
                f.get(120, TimeUnit.SECONDS);
            }
        }
        return acks.size();
    }

    private static long fetchAll(KafkaBroker broker, List<String> topics) {
        Map<String, Object> c = new java.util.HashMap<>(KafkaClients.consumerConfig(broker));
        c.remove(ConsumerConfig.GROUP_ID_CONFIG);
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        long seen = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c)) {
            List<TopicPartition> all = new ArrayList<>();
            for (String topic : topics) {
                consumer.partitionsFor(topic).forEach(p -> all.add(new TopicPartition(topic, p.partition())));
            }
            consumer.assign(all);
            consumer.seekToBeginning(all);
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
            while (seen < all.size() * 2L && System.nanoTime() < deadline) {
                seen += consumer.poll(Duration.ofSeconds(1)).count();
            }
        }
        return seen;
    }

    private static String get(int port) throws Exception {
        HttpURLConnection c = (HttpURLConnection) URI.create("http://127.0.0.1:" + port + "/metrics").toURL().openConnection();
        c.setConnectTimeout(3000);
        c.setReadTimeout(60000);
        try (InputStream in = c.getInputStream()) {
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        } finally {
            c.disconnect();
        }
    }

    /** Samples in the scrape: every line that is not a comment. */
    static int series(String scrape) {
        return (int) scrape.lines().filter(l -> !l.isEmpty() && !l.startsWith("#")).count();
    }
}
