package io.stallscope.it.examples;

import io.stallscope.it.agent.AgentJar;
import io.stallscope.it.agent.Polling;
import io.stallscope.it.broker.PrometheusScrape;
import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.FreePorts;
import io.stallscope.it.broker.HarnessDirs;
import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.KafkaVersion;
import io.stallscope.it.broker.LocalKafkaBroker;
import io.stallscope.it.broker.LocalTieredStorage;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard's and the alert rules' queries against what a real agent serves: a Kafka broker
 * started with the plain-install KAFKA_OPTS snippet (its port swapped for a free one), a topic with
 * small segments produced to and read back (rolls, snapshots, sendfile on the network threads), then
 * one scrape of the agent. The broker has a remote tier too (Kafka's LocalTieredStorage in a directory under
 * target/): a tiered topic's first segment copied and deleted locally, a timestamp lookup there (on 3.9.2 a request
 * handler runs the plugin's calls, KAFKA-15859) and a consumer from offset 0 (its reads queue for and run on the
 * remote-log-reader pool), as docs/tiered-storage.md describes. Every metric, label and label value the queries name
 * must be in the scrape, and the series the alerts watch must have data.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExampleQueriesIT {
    private static final String TOPIC = "examples";
    private static final String TIERED_TOPIC = "examples-tiered";
    private static final int TIERED_RECORDS = 3000;
    private static final int RECORDS = 6000;
    private static final int RECORD_SIZE = 1024;
    private static final Pattern LEGEND_LABEL = Pattern.compile("\\{\\{\\s*(?:\\$labels\\.)?([a-zA-Z_][a-zA-Z0-9_]*)\\s*}}");

    private KafkaBroker broker;
    private PrometheusScrape scrape;
    private Path remote;

    @BeforeAll
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void brokerWithTheExampleAgentOptions() throws Exception {
        String kafkaOpts = ExampleFilesTest.kafkaOptsFromSnippet(AgentJar.path(), "");
        int port = FreePorts.next();
        assertThat(kafkaOpts).contains("prometheus=127.0.0.1:9405");
        // the only change: another port, so a broker of someone else's on 9405 cannot answer for this one
        String opts = kafkaOpts.replace("prometheus=127.0.0.1:9405", "prometheus=127.0.0.1:" + port);
        KafkaVersion version = KafkaVersion.of("3.9.2");
        remote = HarnessDirs.target().resolve("tiered").resolve("examples-remote-" + ProcessHandle.current().pid());
        HarnessDirs.deleteQuietly(remote);
        Files.createDirectories(remote);
        BrokerSpec spec = BrokerSpec.builder(version).name("examples").kafkaOpts(opts)
            .serverProperties(LocalTieredStorage.serverProperties(version, remote))
            // the mitigations' and captures' counters exist only with them on: set in the environment, so the
            // option string stays the snippet's
            .env("STALLSCOPE_MITIGATE", "prefetch")
            .env("STALLSCOPE_PROFILE", "on")
            .env("STALLSCOPE_PROFILE_DIR", Files.createTempDirectory(HarnessDirs.target(), "examples-captures").toString())
            .build();
        broker = new LocalKafkaBroker(spec);
        broker.start();
        KafkaClients.createTopic(broker, TOPIC, 1, KafkaClients.SMALL_SEGMENTS);
        assertThat(KafkaClients.produce(broker, TOPIC, RECORDS, RECORD_SIZE)).isEqualTo(RECORDS);
        assertThat(KafkaClients.consumeAll(broker, TOPIC, true, Duration.ofSeconds(60))).isEqualTo(RECORDS);
        readTheRemoteTier();
        scrape = PrometheusScrape.scrape(port);
        Files.writeString(broker.workDir().resolve("examples-scrape.txt"), scrape.text());
        String log = Files.readString(broker.logFile());
        assertThat(log).contains("prometheus on http://127.0.0.1:" + port + "/metrics").contains("prefetch");
    }

    /**
     * The remote read path: a timestamp lookup that falls in the remote tier (answered on a request handler before
     * Kafka 4.0), then a consumer from offset 0, whose first fetches are remote reads on the reader pool.
     */
    private void readTheRemoteTier() throws Exception {
        KafkaClients.createTopic(broker, TIERED_TOPIC, 1, LocalTieredStorage.topicConfigs());
        long producedFrom = System.currentTimeMillis();
        assertThat(KafkaClients.produce(broker, TIERED_TOPIC, TIERED_RECORDS, RECORD_SIZE)).isEqualTo(TIERED_RECORDS);
        Path local = broker.dataDir().resolve(TIERED_TOPIC + "-0");
        assertThat(Polling.until(Duration.ofSeconds(90), () -> LocalTieredStorage.firstSegmentDeletedLocally(local),
            gone -> gone)).as("the first segment of %s copied and deleted locally", local).isTrue();
        TopicPartition first = new TopicPartition(TIERED_TOPIC, 0);
        try (Admin admin = KafkaClients.admin(broker)) {
            assertThat(admin.listOffsets(Map.of(first, OffsetSpec.forTimestamp(producedFrom))).partitionResult(first)
                .get(1, TimeUnit.MINUTES).offset()).as("the first record's offset, in the remote tier").isZero();
        }
        assertThat(KafkaClients.consumeAll(broker, TIERED_TOPIC, true, Duration.ofSeconds(60))).isEqualTo(TIERED_RECORDS);
    }

    @AfterAll
    void stop() {
        if (broker != null) {
            broker.close();
        }
        if (remote != null) {
            HarnessDirs.deleteQuietly(remote);
        }
    }

    @Test
    void dashboardQueriesNameOnlyWhatTheAgentServes() throws Exception {
        List<ExampleQueries.Query> queries = ExampleQueries.dashboard();
        assertThat(queries).hasSizeGreaterThan(10);
        assertThat(problems(queries)).isEmpty();
    }

    @Test
    void alertQueriesNameOnlyWhatTheAgentServes() throws Exception {
        List<ExampleQueries.Query> queries = ExampleQueries.ruleQueries();
        assertThat(queries).hasSize(7);
        assertThat(problems(queries)).isEmpty();
    }

    /**
     * The ops the stall alerts watch all happened under this load, the remote tier's on the roles the alerts name:
     * their series have counts. A histogram's _bucket, _sum or _count is counted by its _count series.
     */
    @Test
    void seriesTheAlertsWatchHaveData() throws Exception {
        for (ExampleQueries.Query q : ExampleQueries.ruleQueries()) {
            for (PromQl.Selector s : PromQl.parse(q.expr()).selectors()) {
                String histogram = s.metric().replaceFirst("_(bucket|sum|count)$", "");
                if (histogram.equals(s.metric())) {
                    continue; // the advice-errors counter: zero on a healthy agent, its rule's tests are promtool's
                }
                double count = 0;
                for (PrometheusScrape.Series series : scrape.series(histogram + "_count")) {
                    if (matches(s, series)) {
                        count += series.value();
                    }
                }
                assertThat(count).as(q.where() + ": ops counted for " + s).isPositive();
            }
        }
    }

    /**
     * Where docs/seed-problems.md says each op runs, on Kafka 3.9.2: the roll and the index trims on the
     * request handler that rolls, the snapshot fsync and the rolled segment's flush on the scheduler.
     */
    @Test
    void opsRunOnTheThreadRolesTheGuideNames() {
        double rolls = count("log_roll", "request_handler");
        assertThat(rolls).as("rolls").isPositive();
        assertThat(count("segment_inactive", "request_handler")).isGreaterThanOrEqualTo(rolls);
        assertThat(count("index_resize", "request_handler")).as("offset and time index trimmed per roll")
            .isGreaterThanOrEqualTo(2 * rolls);
        assertThat(count("snapshot_write", "request_handler")).isGreaterThanOrEqualTo(rolls);
        assertThat(count("snapshot_flush", "scheduler")).as("3.7+: the snapshot fsync on the scheduler").isPositive();
        assertThat(count("snapshot_flush", "request_handler")).isZero();
        assertThat(count("segment_flush", "scheduler")).as("rolled segments flushed by the scheduler").isPositive();
        assertThat(count("transfer_to", "network")).as("plaintext fetches sent by the network threads").isPositive();
    }

    private double count(String op, String role) {
        return scrape.series("stallscope_op_seconds_count").stream()
            .filter(s -> op.equals(s.labels().get("op")) && role.equals(s.labels().get("role")))
            .mapToDouble(PrometheusScrape.Series::value).sum();
    }

    private List<String> problems(List<ExampleQueries.Query> queries) {
        List<String> problems = new ArrayList<>();
        for (ExampleQueries.Query q : queries) {
            problems.addAll(QueryCheck.problems(q.where(), q.expr(), scrape));
            Set<String> labels = QueryCheck.resultLabels(q.expr(), scrape);
            Matcher m = LEGEND_LABEL.matcher(q.legend());
            while (m.find()) {
                if (!labels.contains(m.group(1))) {
                    problems.add(q.where() + ": shows label " + m.group(1) + ", which its result does not have (" + labels + ")");
                }
            }
        }
        return problems;
    }

    /** Whether a series satisfies every matcher of a selector (=, !=, =~, !~; regexes anchored as in PromQL). */
    static boolean matches(PromQl.Selector selector, PrometheusScrape.Series series) {
        for (PromQl.Matcher m : selector.matchers()) {
            String v = series.labels().getOrDefault(m.label(), "");
            boolean ok = switch (m.op()) {
                case "=" -> v.equals(m.value());
                case "!=" -> !v.equals(m.value());
                case "=~" -> v.matches(m.value());
                case "!~" -> !v.matches(m.value());
                default -> throw new IllegalArgumentException(m.op());
            };
            if (!ok) {
                return false;
            }
        }
        return true;
    }
}
