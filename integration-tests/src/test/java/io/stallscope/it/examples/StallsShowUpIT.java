package io.stallscope.it.examples;

import io.stallscope.it.agent.AgentJar;
import io.stallscope.it.agent.Polling;
import io.stallscope.it.broker.PrometheusScrape;
import com.fasterxml.jackson.databind.JsonNode;
import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.FreePorts;
import io.stallscope.it.broker.HarnessDirs;
import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.LocalKafkaBroker;
import io.stallscope.it.slowdisk.PageCache;
import io.stallscope.it.slowdisk.SlowDisk;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three seed stalls made to happen on a real Kafka 3.6.2 broker with the agent, and what an operator then
 * sees, as docs/seed-problems.md says: the example alerts go active in a real Prometheus evaluating the
 * example rules file, the dashboard's queries return data, the broker's log has the slow-op lines, and
 * {@code analyzer report} on a JFR recording of each (started and stopped with jcmd around it) names it.
 * The HTML timeline of each recording is screenshot into target/docs-images (copied by hand into docs/images).
 *
 * Simulated by the LD_PRELOAD shim: a slow disk, where every fsync of a producer-state snapshot waits
 * 100 ms (the roll's snapshot fsync, KAFKA-9693, on the request handler before Kafka 3.7) and every
 * sendfile or pread of the topic's segment pages that are not in the page cache waits 100 ms plus 20 ms
 * per MiB (a cold read on the network thread, KAFKA-7504); and three times during steady appends one
 * write(2) to the active segment waits 300 ms (a request handler blocked in write under the log's lock).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StallsShowUpIT {
    static final String TOPIC = "stalls";
    private static final String ROLL_ALERT = "KafkaSnapshotFsyncOnRequestHandler";
    private static final String SENDFILE_ALERT = "KafkaNetworkThreadBlockedOnDiskRead";
    private static final String APPEND_ALERT = "KafkaAppendBlockedInWrite";
    private static final Duration WRITE_STALL = Duration.ofMillis(300);
    private static final int BLOCKED_WRITES = 3;
    private static final int PRODUCERS = 3;
    private static final int RECORDS = 4000;
    private static final int RECORD_SIZE = 1024;
    private static final String JFC = """
        <?xml version="1.0" encoding="UTF-8"?>
        <configuration version="2.0" label="stallscope docs pictures">
          <event name="jdk.JavaMonitorEnter"><setting name="enabled">true</setting><setting name="stackTrace">true</setting><setting name="threshold">1 ms</setting></event>
          <event name="jdk.ThreadPark"><setting name="enabled">true</setting><setting name="stackTrace">true</setting><setting name="threshold">5 ms</setting></event>
          <event name="jdk.ExecutionSample"><setting name="enabled">true</setting><setting name="period">10 ms</setting></event>
          <event name="jdk.NativeMethodSample"><setting name="enabled">true</setting><setting name="period">10 ms</setting></event>
          <event name="jdk.FileForce"><setting name="enabled">true</setting><setting name="stackTrace">true</setting><setting name="threshold">0 ms</setting></event>
          <event name="jdk.FileRead"><setting name="enabled">true</setting><setting name="stackTrace">true</setting><setting name="threshold">1 ms</setting></event>
          <event name="jdk.FileWrite"><setting name="enabled">true</setting><setting name="stackTrace">true</setting><setting name="threshold">1 ms</setting></event>
        </configuration>
        """;

    private Path dir;
    private KafkaBroker broker;
    private PrometheusServer prometheus;
    private final Map<String, String> alertsAfterRolls = new LinkedHashMap<>();
    private final Map<String, String> alertsAfterCatchUp = new LinkedHashMap<>();
    private final Map<String, String> ruleHealth = new LinkedHashMap<>();
    private final Map<String, String> summaries = new LinkedHashMap<>();
    private final Map<String, JsonNode> dashboardResults = new LinkedHashMap<>();
    private String brokerLog;
    private JsonNode rolls;
    private JsonNode catchUp;
    private JsonNode appends;
    private final Map<String, String> alertsAfterBlockedWrites = new LinkedHashMap<>();

    @BeforeAll
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void makeTheStallsHappen() throws Exception {
        dir = HarnessDirs.target().resolve("examples-stalls");
        deleteRecursively(dir);
        Files.createDirectories(dir);
        Path settings = dir.resolve("stalls.jfc");
        Files.writeString(settings, JFC);
        SlowDisk disk = SlowDisk.logTo(dir.resolve("shim.log"))
            .slowFsync("\\.snapshot$", Duration.ofMillis(100))
            .slowColdReads("/" + TOPIC + "-0/[0-9]+\\.log$", Duration.ofMillis(100), Duration.ofMillis(20))
            .slowWriteOnTrigger("/" + TOPIC + "-0/[0-9]{20}\\.log$", WRITE_STALL, dir.resolve("slow-write-now"));
        int agentPort = FreePorts.next();
        BrokerSpec.Builder spec = BrokerSpec.builder("3.6.2").name("stalls")
            // slow.log.per.minute: three stalls within a minute or two would pass the default 60 lines a minute
            .javaAgent(AgentJar.path(), "prometheus=127.0.0.1:" + agentPort + ",jfr.threshold=1ms,slow.log.per.minute=1000");
        disk.applyTo(spec);
        broker = new LocalKafkaBroker(spec.build());
        broker.start();
        prometheus = PrometheusServer.start(dir.resolve("prometheus"), Examples.file(ExampleQueries.RULES), agentPort);

        KafkaClients.createTopic(broker, TOPIC, 1, KafkaClients.SMALL_SEGMENTS);
        JfrRecording recording = JfrRecording.start(broker.pid(), "rolls", settings, dir.resolve("rolls.jfr"));
        produceConcurrently();
        recording.stop();
        alertsAfterRolls.putAll(prometheus.awaitActive(List.of(ROLL_ALERT), Duration.ofSeconds(60)));

        List<Path> segments = segments();
        PageCache.evict(segments);
        recording = JfrRecording.start(broker.pid(), "catch-up", settings, dir.resolve("catch-up.jfr"));
        assertThat(KafkaClients.consumeAll(broker, TOPIC, true, Duration.ofSeconds(120))).isEqualTo((long) PRODUCERS * RECORDS);
        recording.stop();
        alertsAfterCatchUp.putAll(prometheus.awaitActive(List.of(SENDFILE_ALERT), Duration.ofSeconds(60)));

        recording = JfrRecording.start(broker.pid(), "appends", settings, dir.resolve("appends.jfr"));
        produceWithBlockedWrites(disk);
        recording.stop();
        alertsAfterBlockedWrites.putAll(prometheus.awaitActive(List.of(APPEND_ALERT), Duration.ofSeconds(60)));

        ruleHealth.putAll(prometheus.ruleHealth());
        summaries.putAll(prometheus.activeSummaries());
        for (ExampleQueries.Query q : ExampleQueries.dashboard()) {
            dashboardResults.put(q.where(), prometheus.query(q.expr().replace("$instance", ".*")));
        }
        Files.writeString(dir.resolve("scrape.txt"), PrometheusScrape.scrape(agentPort).text());
        broker.stop();
        brokerLog = Files.readString(broker.logFile(), StandardCharsets.ISO_8859_1);
        rolls = analyze("rolls");
        catchUp = analyze("catch-up");
        appends = analyze("appends");
    }

    /** analyzer report on NAME.jfr, with the text, JSON and HTML reports next to it. */
    private JsonNode analyze(String name) throws Exception {
        AnalyzerCli.report(List.of(dir.resolve(name + ".jfr").toString(), "--json", dir.resolve(name + ".json").toString(),
            "--html", dir.resolve(name + ".html").toString()), dir.resolve(name + ".txt"));
        return AnalyzerCli.json(dir.resolve(name + ".json"));
    }

    private void produceConcurrently() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(PRODUCERS);
        try {
            List<Future<Long>> acked = new ArrayList<>();
            for (int i = 0; i < PRODUCERS; i++) {
                acked.add(pool.submit(() -> KafkaClients.produce(broker, TOPIC, RECORDS, RECORD_SIZE)));
            }
            for (Future<Long> f : acked) {
                assertThat(f.get(3, TimeUnit.MINUTES)).isEqualTo(RECORDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Producers append while, three times, one write(2) of the active segment is held 300 ms by the shim:
     * the handler making it holds the log's lock meanwhile, as when the kernel throttles a writer.
     */
    private void produceWithBlockedWrites(SlowDisk disk) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(PRODUCERS);
        try {
            List<Future<Long>> acked = new ArrayList<>();
            for (int i = 0; i < PRODUCERS; i++) {
                acked.add(pool.submit(() -> KafkaClients.produce(broker, TOPIC, RECORDS / 2, RECORD_SIZE)));
            }
            int taken = 0;
            for (int i = 0; i < BLOCKED_WRITES; i++) {
                disk.armWrite();
                taken += Polling.until(Duration.ofSeconds(20), Duration.ofMillis(20), disk::writeTaken, t -> t) ? 1 : 0;
                Thread.sleep(200);
            }
            for (Future<Long> f : acked) {
                assertThat(f.get(3, TimeUnit.MINUTES)).isEqualTo(RECORDS / 2);
            }
            assertThat(taken).as("writes the shim held").isPositive();
        } finally {
            pool.shutdownNow();
        }
    }

    private List<Path> segments() throws Exception {
        try (Stream<Path> files = Files.list(broker.dataDir().resolve(TOPIC + "-0"))) {
            return files.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().toList();
        }
    }

    @AfterAll
    void stop() throws Exception {
        if (prometheus != null) {
            prometheus.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void theAlertForEachStallGoesActiveInPrometheus() {
        assertThat(alertsAfterRolls).as("after rolls with a 100 ms snapshot fsync").containsKey(ROLL_ALERT);
        assertThat(alertsAfterCatchUp).as("after a catch-up read of evicted segments").containsKey(SENDFILE_ALERT);
        assertThat(alertsAfterBlockedWrites).as("after appends held 300 ms in write(2)").containsKey(APPEND_ALERT);
        assertThat(alertsAfterCatchUp.values()).allMatch(s -> s.equals("pending") || s.equals("firing"));
    }

    @Test
    void alertSummariesRenderWithTheBrokerAndTheValue() {
        assertThat(summaries).isNotEmpty();
        summaries.forEach((alert, summary) -> assertThat(summary).as(alert)
            .startsWith("Kafka 127.0.0.1:")
            .containsPattern("\\((p99(\\.9)? [0-9.]+m?s|[0-9.]+% of a handler's time)\\)").doesNotContain("error"));
    }

    @Test
    void prometheusLoadsAndEvaluatesEveryRule() throws Exception {
        assertThat(ruleHealth.keySet()).containsExactlyInAnyOrderElementsOf(
            ExampleQueries.rules().stream().map(ExampleQueries.Rule::alert).toList());
        assertThat(ruleHealth.values()).allMatch(h -> h.trim().equals("ok"));
    }

    @Test
    void dashboardQueriesRunAndThePanelsForTheStallsHaveData() {
        dashboardResults.forEach((where, r) ->
            assertThat(r.path("status").asText()).as(where + ": " + r).isEqualTo("success"));
        for (String panel : List.of("sendfile on network threads", "records_append p99.9", "Producer-state snapshot at roll",
            "Longest op", "segment_flush p99", "Ops per second")) {
            assertThat(dashboardResults.entrySet()).as(panel)
                .anyMatch(e -> e.getKey().contains(panel) && e.getValue().path("data").path("result").size() > 0);
        }
    }

    @Test
    void theBrokerLogHasSlowOpLinesForEach() {
        // Kafka 3.6: the snapshot is written inside the roll, so the stall is one line, the roll's, naming both
        assertThat(brokerLog.lines().filter(l -> l.contains("slow op=log_roll") && l.contains("role=request_handler")
            && l.contains("topic=" + TOPIC) && l.matches(".* inner=snapshot_take:[0-9.]+ms,snapshot_write:[0-9.]+ms.*")
            && l.endsWith("(stallscope)"))).isNotEmpty();
        assertThat(brokerLog.lines().filter(l -> l.contains("slow op=snapshot_write"))).as("no line of its own").isEmpty();
        assertThat(brokerLog.lines().filter(l -> l.contains("slow op=transfer_to") && l.contains("role=network")
            && l.endsWith("(stallscope)"))).isNotEmpty();
        assertThat(brokerLog.lines().filter(l -> l.contains("slow op=records_append") && l.contains("role=request_handler")
            && l.contains("topic=" + TOPIC) && l.endsWith("(stallscope)"))).isNotEmpty();
    }

    @Test
    void analyzerNamesBothStalls() {
        assertThat(kinds(rolls)).contains("stalled-op-under-lock", "fsync-on-produce-path", "holder-blocked-in-file-io");
        // an op of the roll on a request handler, others waiting for its lock (what it sat in varies: mostly fsync(2),
        // sometimes the snapshot's write(2) on this loaded machine); findings are ranked by impact, so it need not be first
        assertThat(finding(rolls, "stalled-op-under-lock").path("summary").asText())
            .containsPattern("held by data-plane-kafka-request-handler-[0-9]+ #[0-9]+ in (log_roll|snapshot_take|snapshot_write) [0-9.]+ ms")
            .contains(TOPIC + "-0");
        assertThat(finding(rolls, "fsync-on-produce-path").path("summary").asText()).contains("during a segment roll");
        // a request handler held the log's lock in fsync, inside the roll's snapshot write, while others waited
        assertThat(finding(rolls, "holder-blocked-in-file-io").toString())
            .contains("data-plane-kafka-request-handler-").contains("ProducerStateManager.writeSnapshot");
        assertThat(longest(rolls, "snapshot_write", "request_handler").path("durationMs").asDouble()).isGreaterThanOrEqualTo(100);

        assertThat(kinds(catchUp)).contains("network-thread-blocked-in-file-io");
        assertThat(finding(catchUp, "network-thread-blocked-in-file-io").toString()).contains("network-thread");
        assertThat(catchUp.path("findings").toString()).containsPattern("transfer_to [0-9.]+ ms on data-plane-kafka-network-thread-");
        assertThat(longest(catchUp, "transfer_to", "network").path("durationMs").asDouble()).isGreaterThanOrEqualTo(100);
    }

    @Test
    void analyzerNamesTheAppendHeldInWrite() {
        assertThat(longest(appends, "records_append", "request_handler").path("durationMs").asDouble())
            .isGreaterThanOrEqualTo(WRITE_STALL.toMillis());
        assertThat(appends.path("findings").toString())
            .containsPattern("held by data-plane-kafka-request-handler-[0-9]+ #[0-9]+ in records_append [0-9.]+ ms")
            .as("the agent's log_append is where the holder was, never what it did").doesNotContain("in log_append");
    }

    @Test
    void timelineScreenshotsOfEachStall() throws Exception {
        Path out = HarnessDirs.target().resolve("docs-images");
        Files.createDirectories(out);
        Chromium chromium = Chromium.require();
        screenshot(chromium, "rolls", longest(rolls, "log_roll", "request_handler"), "request-handler|kafka-scheduler",
            out.resolve("timeline-roll-snapshot-fsync.png"));
        screenshot(chromium, "catch-up", longest(catchUp, "transfer_to", "network"), "network-thread|request-handler",
            out.resolve("timeline-sendfile-network-thread.png"));
        screenshot(chromium, "appends", longest(appends, "records_append", "request_handler"), "request-handler",
            out.resolve("timeline-append-blocked-in-write.png"));
    }

    /** The recording's HTML report, filtered to some lanes, with the middle of a span selected. */
    private void screenshot(Chromium chromium, String name, JsonNode span, String lanes, Path png) throws Exception {
        double mid = span.path("startMs").asDouble() + span.path("durationMs").asDouble() / 2;
        String url = dir.resolve(name + ".html").toUri() + "#filter=" + lanes.replace("|", "%7C")
            + "&t=" + String.format(Locale.ROOT, "%.1f", mid);
        chromium.screenshot(url, png, 1400, 1300);
        assertThat(png).exists();
        assertThat(Files.size(png)).as(png + " is a real picture").isGreaterThan(20_000);
    }

    private static List<String> kinds(JsonNode analysis) {
        List<String> kinds = new ArrayList<>();
        analysis.path("findings").forEach(f -> kinds.add(f.path("kind").asText()));
        return kinds;
    }

    private static JsonNode finding(JsonNode analysis, String kind) {
        for (JsonNode f : analysis.path("findings")) {
            if (f.path("kind").asText().equals(kind)) {
                return f;
            }
        }
        throw new AssertionError("no finding " + kind);
    }

    /** The agent's longest JFR span of an op on a thread role, from the analyzer's JSON. */
    private static JsonNode longest(JsonNode analysis, String op, String role) {
        JsonNode best = null;
        for (JsonNode s : analysis.path("spans")) {
            if (s.path("op").asText().equals(op) && s.path("threadRole").asText().equals(role)
                && (best == null || s.path("durationMs").asDouble() > best.path("durationMs").asDouble())) {
                best = s;
            }
        }
        if (best == null) {
            throw new AssertionError("no " + op + " span on role " + role);
        }
        return best;
    }

    private static void deleteRecursively(Path p) throws Exception {
        if (Files.exists(p)) {
            try (Stream<Path> walk = Files.walk(p)) {
                walk.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }
}
