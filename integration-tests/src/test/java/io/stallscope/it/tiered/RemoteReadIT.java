package io.stallscope.it.tiered;

import io.stallscope.it.agent.AgentJar;
import io.stallscope.it.agent.Polling;
import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.FreePorts;
import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.KafkaVersion;
import io.stallscope.it.broker.LocalKafkaBroker;
import io.stallscope.it.broker.LocalTieredStorage;
import io.stallscope.it.broker.HarnessDirs;
import io.stallscope.it.broker.PrometheusScrape;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent on a broker with tiered storage (issue 55): Kafka 3.9.2 and 4.1.2 with its own LocalTieredStorage as the remote
 * tier, in a directory on the build's disk (target/), no throttle. Segments are copied to the remote tier and deleted
 * locally, then a consumer reads the topic from offset 0, so its first fetches go to remote storage: the agent times
 * the copies, the reads' queue waits and runs, the plugin's fetches and the remote index cache's loads, each with its
 * partition (every one a slow line here, threshold 0) on the thread role that ran it. With one reader thread and three
 * consumers reading at once, reads queue behind each other: a queued read's line names the read that held the pool.
 * Before, a timestamp lookup in the remote tier: on 3.9.2 a request handler runs the plugin's calls itself
 * (KAFKA-15859), on 4.1.2 the reader pool does (KIP-1075).
 */
class RemoteReadIT {
    private static final String TOPIC = "tiered";
    private static final int RECORDS = 12_000;
    private static final int CONSUMERS = 3;
    private static final List<String> REMOTE_OPS = List.of("remote_copy", "remote_delete", "remote_queue_wait",
        "remote_read", "remote_fetch", "remote_fetch_index", "remote_index_load");

    @ParameterizedTest
    @ValueSource(strings = {"3.9.2", "4.1.2"})
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void aConsumerFromOffsetZeroReadsTheRemoteTier(String kafka) throws Exception {
        KafkaVersion version = KafkaVersion.of(kafka);
        Path remote = HarnessDirs.target().resolve("tiered").resolve("remote-" + ProcessHandle.current().pid() + "-" + kafka);
        HarnessDirs.deleteQuietly(remote);
        Files.createDirectories(remote);
        int port = FreePorts.next();
        BrokerSpec spec = BrokerSpec.builder(version).name("tiered")
            .serverProperties(LocalTieredStorage.serverProperties(version, remote))
            // one reader thread: three consumers' remote reads queue behind each other's
            .serverProperty("remote.log.reader.threads", "1")
            .javaAgent(AgentJar.path(), "prometheus=127.0.0.1:" + port + "," + REMOTE_OPS.stream()
                .map(op -> "slow.threshold." + op + "=0").collect(Collectors.joining(",")) + ",slow.log.per.minute=100000")
            .build();
        try (KafkaBroker broker = new LocalKafkaBroker(spec)) {
            broker.start();
            KafkaClients.createTopic(broker, TOPIC, 2, LocalTieredStorage.topicConfigs());
            long producedFrom = System.currentTimeMillis();
            KafkaClients.produce(broker, TOPIC, RECORDS, 1024);
            Path local = broker.dataDir().resolve(TOPIC + "-0");
            assertThat(Polling.until(Duration.ofSeconds(90), () -> LocalTieredStorage.firstSegmentDeletedLocally(local), gone -> gone))
                .as("the first segment of %s copied and deleted locally", local).isTrue();

            // A timestamp in the remote tier: before 4.0 (KIP-1075) a request handler looks it up in remote storage
            // itself, from 4.0 the reader pool does. The answer is the same, offset 0.
            PrometheusScrape beforeLookup = PrometheusScrape.scrape(port);
            TopicPartition first = new TopicPartition(TOPIC, 0);
            try (Admin admin = KafkaClients.admin(broker)) {
                long offset = admin.listOffsets(Map.of(first, OffsetSpec.forTimestamp(producedFrom))).partitionResult(first)
                    .get(1, TimeUnit.MINUTES).offset();
                assertThat(offset).as("the offset of the first record at or after the produce began").isZero();
            }
            PrometheusScrape afterLookup = PrometheusScrape.scrape(port);
            double onHandlers = REMOTE_OPS.stream()
                .mapToDouble(op -> afterLookup.countSince(beforeLookup, op, "request_handler")).sum();
            double onPool = REMOTE_OPS.stream().mapToDouble(op -> afterLookup.countSince(beforeLookup, op, "other")).sum();
            System.out.printf("Kafka %s: a timestamp lookup in the remote tier ran %.0f remote ops on request handlers, %.0f"
                + " on the remote pools%n", version, onHandlers, onPool);
            if (version.compareTo(KafkaVersion.of("4.0.0")) < 0) {
                assertThat(onHandlers).as("remote ops of the lookup on a request handler (KAFKA-15859)").isPositive();
                assertThat(Files.readString(broker.logFile(), StandardCharsets.ISO_8859_1).lines()
                    .filter(l -> l.contains("slow op=remote_") && l.contains(" role=request_handler topic=" + TOPIC
                        + " partition=0 ")).peek(l -> System.out.println("  " + l)).count())
                    .as("lines of the plugin calls the handler waited for").isPositive();
            } else {
                assertThat(onHandlers).as("no remote op on a request handler since KIP-1075").isZero();
            }
            List<CompletableFuture<Long>> reads = new ArrayList<>();
            for (int i = 0; i < CONSUMERS; i++) {
                reads.add(CompletableFuture.supplyAsync(() -> KafkaClients.consumeAll(broker, TOPIC, true,
                    Duration.ofMinutes(2))));
            }
            for (CompletableFuture<Long> read : reads) {
                assertThat(read.get(3, TimeUnit.MINUTES)).as("records read from offset 0").isEqualTo(RECORDS);
            }

            PrometheusScrape scrape = PrometheusScrape.scrape(port);
            List<String> lines = Files.readString(broker.logFile(), StandardCharsets.ISO_8859_1).lines()
                .filter(l -> l.contains("slow op=remote_")).toList();
            for (String op : REMOTE_OPS) {
                double count = scrape.sum(PrometheusScrape.OP_SECONDS + "_count", Map.of("op", op));
                System.out.printf("%s: %.0f, on %s%n", op, count, scrape.series(PrometheusScrape.OP_SECONDS + "_count")
                    .stream().filter(x -> op.equals(x.labels().get("op")) && x.value() > 0).map(x -> x.labels().get("role"))
                    .toList());
                if (op.equals("remote_delete")) {
                    continue; // nothing expires from the remote tier in this run
                }
                assertThat(count).as("%s timed", op).isPositive();
                for (int partition = 0; partition < 2; partition++) {
                    String where = " topic=" + TOPIC + " partition=" + partition + " ";
                    // an op inside a remote read (the plugin's fetches, the index cache's load) is named in the
                    // read's line, as every nested op is (one line a stall)
                    assertThat(lines).as("a slow line of %s, or of a remote read naming it, on partition %d", op, partition)
                        .anyMatch(l -> l.contains(where) && (l.contains("slow op=" + op + " ")
                            || l.contains("slow op=remote_read ") && l.matches(".* inner=(.*,)?" + op + ":.*")));
                }
            }
            // every remote read looks its segment's indexes up in the cache: each segment's first lookup loads them
            double misses = scrape.sum("stallscope_remote_index_cache_total", Map.of("result", "miss"));
            double hits = scrape.sum("stallscope_remote_index_cache_total", Map.of("result", "hit"));
            System.out.printf("remote index cache: %.0f hits, %.0f misses%n", hits, misses);
            assertThat(misses).as("cache misses, against remote_index_load's count").isEqualTo(
                scrape.sum(PrometheusScrape.OP_SECONDS + "_count", Map.of("op", "remote_index_load")));
            assertThat(hits).as("cache hits: %d consumers read the same segments", CONSUMERS + 1).isPositive();
            lines.stream().filter(l -> l.contains("slow op=remote_read ")).limit(2).forEach(l -> System.out.println("  " + l));
            // a queued read is behind a read that held the pool's one thread, or behind nothing
            List<String> waits = lines.stream().filter(l -> l.contains("slow op=remote_queue_wait ")).toList();
            List<String> paired = waits.stream().filter(l -> l.contains(": behind ")).toList();
            System.out.printf("remote_queue_wait lines: %d, naming a read that held the pool: %d%n", waits.size(),
                paired.size());
            paired.stream().limit(3).forEach(l -> System.out.println("  " + l));
            assertThat(paired).as("queued reads behind another consumer's read on the pool's one thread").isNotEmpty()
                .allSatisfy(l -> assertThat(l).containsPattern(
                    ": behind remote_read [0-9.]+ ms( so far)? of tiered-[01] in the same reader pool on other thread "));
        } finally {
            HarnessDirs.deleteQuietly(remote);
        }
    }
}
