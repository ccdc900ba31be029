package io.stallscope.it.agent;

import io.stallscope.it.bench.LoadAverage;
import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.FreePorts;
import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.KafkaVersion;
import io.stallscope.it.broker.LocalKafkaBroker;
import io.stallscope.it.broker.PrometheusScrape;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Benchmark, not a CI test (-Dstallscope.bench=true; docs/safepoints.md): how often, on a real broker, a fetch's
 * index lookup waits for KAFKA-19390's remap lock behind a roll's resize, how long, and whether the agent pairs the
 * waits with the resize. Kafka 3.9.2 and 4.4.0 (-Dstallscope.bench.versions) with the agent, every contended wait
 * a slow line (slow.threshold.index_remap_wait=0); one partition with 1 MiB segments, a producer at 3,000 records/s
 * of 1 KiB (about three rolls a second) for -Dstallscope.bench.seconds (30), and 6 consumers fetching at the log's
 * end with fetch.max.wait.ms=0, so that lookups in the index a roll trims are frequent. The disk: the build's own
 * (target/), no throttle.
 */
@EnabledIfSystemProperty(named = "stallscope.bench", matches = "true")
class RemapWaitBenchIT {
    private static final String TOPIC = "remap";
    private static final int RATE = 3000;
    private static final int CONSUMERS = 6;
    private static final int SECONDS = Integer.getInteger("stallscope.bench.seconds", 30);
    private static final List<String> VERSIONS = List.of(System.getProperty("stallscope.bench.versions", "3.9.2,4.4.0")
        .split(","));

    @Test
    @Timeout(value = 20, unit = TimeUnit.MINUTES)
    void lookupsQueuedBehindARollsResize() throws Exception {
        Path target = Path.of(System.getProperty("stallscope.it.target", "target"));
        Path out = target.resolve("bench").resolve("remap-wait.md");
        Files.createDirectories(out.getParent());
        StringBuilder report = new StringBuilder("# Lookups queued on the remap lock (RemapWaitBenchIT)\n\n")
            .append("| Kafka | rolls (index_resize on handlers) | lookups (index_lookup) | remap waits | waits/roll | wait p99 ms")
            .append(" | wait max ms | slow lines | naming index_resize | naming anything else | load |\n")
            .append("|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (String v : VERSIONS) {
            KafkaVersion version = KafkaVersion.of(v);
            int port = FreePorts.next();
            BrokerSpec spec = BrokerSpec.builder(version).name("remap-wait")
                .javaAgent(AgentJar.path(), "prometheus=127.0.0.1:" + port
                    + ",slow.threshold.index_remap_wait=0,slow.log.per.minute=100000").build();
            try (KafkaBroker broker = new LocalKafkaBroker(spec)) {
                broker.start();
                KafkaClients.createTopic(broker, TOPIC, 1, KafkaClients.SMALL_SEGMENTS);
                String startup = Files.readString(broker.logFile(), StandardCharsets.ISO_8859_1).lines()
                    .filter(l -> l.contains("Stallscope ") && l.contains("active (premain)")).findFirst().orElseThrow();
                assertThat(startup).as("the point on this version").contains("index_remap_wait=");
                PrometheusScrape before = PrometheusScrape.scrape(port);
                AtomicBoolean running = new AtomicBoolean(true);
                AtomicLong fetched = new AtomicLong();
                List<Thread> consumers = new ArrayList<>();
                for (int i = 0; i < CONSUMERS; i++) {
                    Thread t = new Thread(() -> tail(broker, running, fetched), "tail-" + i);
                    t.setDaemon(true);
                    t.start();
                    consumers.add(t);
                }
                String load = LoadAverage.oneMinute();
                KafkaClients.producerPerformance(broker, TOPIC, (long) RATE * SECONDS, 1024, RATE, Map.of("linger.ms", "0"),
                    Duration.ofMinutes(5));
                running.set(false);
                for (Thread t : consumers) {
                    t.join(30_000);
                }
                PrometheusScrape after = PrometheusScrape.scrape(port);
                List<String> lines = Files.readString(broker.logFile(), StandardCharsets.ISO_8859_1).lines()
                    .filter(l -> l.contains("slow op=index_remap_wait")).toList();
                long naming = lines.stream().filter(l -> l.contains(": behind index_resize ")).count();
                long other = lines.stream().filter(l -> l.contains(": behind ") && !l.contains(": behind index_resize ")).count();
                double rolls = after.countSince(before, "index_resize", "request_handler");
                double waits = after.countSince(before, "index_remap_wait", "request_handler");
                String row = String.format(Locale.ROOT, "| %s | %.0f | %.0f | %.0f | %.2f | %.3f | %.3f | %d | %d | %d | %s |",
                    version, rolls, after.countSince(before, "index_lookup", "request_handler"), waits,
                    rolls == 0 ? Double.NaN : waits / rolls,
                    after.quantileMsSince(before, "index_remap_wait", "request_handler", 0.99),
                    after.quantileMsSince(before, "index_remap_wait", "request_handler", 1.0),
                    lines.size(), naming, other, load);
                report.append(row).append('\n');
                System.out.println(row + " (consumed " + fetched.get() + " records)");
                lines.stream().limit(3).forEach(l -> System.out.println("  " + l));
                Files.writeString(out, report);
                assertThat(other).as("a remap wait is behind a resize or nothing").isZero();
            }
        }
        System.out.println(report);
    }

    /** Fetches at the log's end as fast as the broker answers, until told to stop. */
    private static void tail(KafkaBroker broker, AtomicBoolean running, AtomicLong fetched) {
        Map<String, Object> config = KafkaClients.consumerConfig(broker);
        config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 0);
        config.put(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, 1);
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
            consumer.assign(List.of(tp));
            consumer.seekToEnd(List.of(tp));
            while (running.get()) {
                fetched.addAndGet(consumer.poll(Duration.ofMillis(100)).count());
            }
        }
    }
}
