package io.stallscope.it.agent;

import io.stallscope.it.broker.PrometheusScrape;
import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.FreePorts;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.KafkaJdks;
import io.stallscope.it.broker.KafkaVersion;
import io.stallscope.it.broker.KafkaVersions;
import io.stallscope.it.container.BrokerFactory;
import io.stallscope.it.container.ContainerImages;
import io.stallscope.it.container.ContainerKafkaBroker;
import io.stallscope.it.container.ContainerSuite;
import io.stallscope.it.container.VersionMatrix;
import io.stallscope.it.slowdisk.ShimCall;
import io.stallscope.it.slowdisk.SlowDisk;
import io.stallscope.it.broker.HarnessDirs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The agent's broker tests over the whole version matrix, each broker in a container built here
 * ({@link ContainerKafkaBroker}), started by the image's kafka-run-class.sh with the agent in
 * KAFKA_OPTS, the way operators deploy it. The same checks as {@link AgentAtStartIT} (points with role
 * and partition, Prometheus scraped from the host on 127.0.0.1, slow-op lines, JFR events, one start-up
 * line naming what was instrumented and why the rest was skipped), then attach and detach from inside
 * the container with its own JDK; and the roll-flush mitigation on a disk slowed by the LD_PRELOAD shim.
 * Each result lands in target/version-matrix.md.
 *
 * <p>Versions: {@link #MATRIX}, or {@code -Dstallscope.container.versions=3.9.2,4.4.0}.
 */
@Order(3) // last: its docs/containers.md check compares the table the other container tests have filled in too
class AgentMatrixContainerIT {
    /**
     * Where a container adds something to the child-JVM matrix ({@code AgentAtStartIT}, every version): the image's
     * own start scripts and an attach from inside the container, on each layout of Kafka's storage classes: 2.8
     * (ZooKeeper, Scala kafka.log.Log), the last 3.x (KRaft, Scala UnifiedLog in core), the newest (Java, in
     * kafka-storage). Every supported version stays in the broker-free catalog check (KafkaTargetsTest).
     */
    static final List<KafkaVersion> MATRIX = List.of(KafkaVersion.of("2.8.2"), KafkaVersion.of("3.9.2"), KafkaVersions.NEWEST);
        private static final Pattern INSTRUMENTED = Pattern.compile("instrumented (\\d+) of (\\d+) points");
    private static final Pattern SKIPPED = Pattern.compile("skipped \\[(.*?)];");

    private static void assumeEngine() {
        ContainerSuite.requireEngine();
    }

    /**
     * After a full, passing run of the matrix on the local images, docs/containers.md's table must be this run's:
     * a page that claims what the suite no longer shows fails here. The fix is
     * {@code scripts/containers.sh readme-table}, which copies target/version-matrix.md into it.
     */
    @AfterAll
    static void readmeShowsThisRun() throws IOException {
        boolean fullRun = System.getProperty("stallscope.container.versions", "").isBlank() && !officialImages();
        if (!fullRun || ContainerSuite.engineMissing() || VersionMatrix.RUN.anyFailed()) {
            return; // a partial run cannot judge the whole table; a failed row already fails the suite
        }
        Path table = HarnessDirs.target().resolve(VersionMatrix.FILE);
        Path readme = HarnessDirs.target().toAbsolutePath().getParent().getParent().resolve("docs/containers.md");
        String inReadme = VersionMatrix.tableIn(Files.readString(readme));
        assertThat(inReadme).as("the version matrix in " + readme + " (between its version-matrix markers) differs from this"
            + " run's " + table + "; run scripts/containers.sh readme-table").isEqualTo(Files.readString(table).strip());
    }

    static List<KafkaVersion> versions() {
        String override = System.getProperty("stallscope.container.versions", "").trim();
        return override.isEmpty() ? MATRIX : KafkaVersions.parseList(override);
    }

    static Stream<Arguments> brokers() {
        // the newest Kafka of the run on the newest JDK of the machine (Temurin 25 here) instead of the default one:
        // AgentAtStartIT runs it on JDK 17 in a child JVM, and no other test attaches on the newest JDK; the official
        // images bring their own JDK, so there it stays on the default
        Path newest = KafkaJdks.newest();
        KafkaVersion newestKafka = versions().stream().max(KafkaVersion::compareTo).orElseThrow();
        boolean newerJdk = !realPath(newest).equals(realPath(KafkaJdks.defaultJdk())) && !officialImages();
        List<Arguments> out = new ArrayList<>();
        for (KafkaVersion v : versions()) {
            out.add(Arguments.of(v, newerJdk && v.equals(newestKafka) ? newest : KafkaJdks.defaultJdk()));
        }
        return out.stream();
    }

    @ParameterizedTest(name = "Kafka {0} on {1}")
    @MethodSource("brokers")
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void agentAtStartThenAttachInContainer(KafkaVersion version, Path jdk) throws Exception {
        assumeEngine();
        String jdkLabel = KafkaJdks.featureVersion(realPath(jdk)).map(String::valueOf).orElse(jdk.toString());
        String row = version.toString();
        VersionMatrix.RUN.record(row, jdkLabel, "metadata", version.usesZooKeeper() ? "ZooKeeper" : "KRaft");
        long t0 = System.nanoTime();
        try {
            atStart(version, jdk, jdkLabel);
        } catch (Throwable e) {
            VersionMatrix.RUN.record(row, jdkLabel, "agent at start", "FAILED: " + firstLine(e));
            throw e;
        }
        // no durations in the table: it must come out the same on every passing run (see readmeShowsThisRun)
        VersionMatrix.RUN.record(row, jdkLabel, "agent at start", "passed");
        System.out.println("[timing] container agent at start, Kafka " + row + " on JDK " + jdkLabel + ": " + seconds(t0) + " s");
        if (officialImages()) {
            // attach needs a JDK (jdk.attach) at a known path in the image: only the local images promise one
            VersionMatrix.RUN.record(row, jdkLabel, "attach/detach", "not run on official images");
            return;
        }
        long t1 = System.nanoTime();
        try {
            attachAndDetach(version, jdk);
        } catch (Throwable e) {
            VersionMatrix.RUN.record(row, jdkLabel, "attach/detach", "FAILED: " + firstLine(e));
            throw e;
        }
        VersionMatrix.RUN.record(row, jdkLabel, "attach/detach", "passed");
        System.out.println("[timing] container attach/detach, Kafka " + row + " on JDK " + jdkLabel + ": " + seconds(t1) + " s");
    }

    /**
     * The roll-flush mitigation in a container, on a disk made slow by the LD_PRELOAD shim (its library and
     * log are host paths in the spec's environment, mounted at the same paths): on 2.8-3.6 every producer-state
     * snapshot fsync leaves the request handler for the scheduler; from 3.7, where Kafka does that itself, the
     * agent says it is not needed and changes nothing. Nothing produced is lost either way.
     */
    /** roll-flush in a container where it applies (before 3.7): RollFlushIT covers the rest in child JVMs. */
    static Stream<Arguments> rollFlushBrokers() {
        return versions().stream().filter(v -> !v.isAtLeast(3, 7, 0)).map(v -> Arguments.of(v, KafkaJdks.defaultJdk()));
    }

    @ParameterizedTest(name = "Kafka {0} on {1}")
    @MethodSource("rollFlushBrokers")
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void rollFlushMitigationOnASlowDisk(KafkaVersion version, Path jdk) throws Exception {
        assumeEngine();
        String jdkLabel = KafkaJdks.featureVersion(realPath(jdk)).map(String::valueOf).orElse(jdk.toString());
        String column = "roll-flush, slow-disk shim";
        try {
            VersionMatrix.RUN.record(version.toString(), jdkLabel, column, rollFlush(version, jdk));
        } catch (Throwable e) {
            VersionMatrix.RUN.record(version.toString(), jdkLabel, column, "FAILED: " + firstLine(e));
            throw e;
        }
    }

    private String rollFlush(KafkaVersion version, Path jdk) throws Exception {
        String topic = "rolls";
        int records = 6000;
        int port = FreePorts.next();
        Path shimLog = Files.createTempDirectory("stallscope-shim").resolve("shim.log");
        SlowDisk disk = SlowDisk.logTo(shimLog).slowFsync("\\.snapshot$", Duration.ofMillis(50));
        BrokerSpec.Builder b = BrokerSpec.builder(version).javaHome(jdk).name("container-roll-flush")
            .javaAgent(AgentJar.path(), "prometheus=127.0.0.1:" + port + ",mitigate=roll-flush");
        disk.applyTo(b);
        try (ContainerKafkaBroker broker = new ContainerKafkaBroker(b.build())) {
            broker.start();
            KafkaClients.createTopic(broker, topic, 1, KafkaClients.SMALL_SEGMENTS);
            assertThat(KafkaClients.produce(broker, topic, records, 1024)).isEqualTo(records);
            long rolls;
            try (var files = Files.list(broker.dataDir().resolve(topic + "-0"))) {
                rolls = files.filter(f -> f.toString().endsWith(".log")).count() - 1;
            }
            assertThat(rolls).as("rolls happened").isGreaterThanOrEqualTo(3);
            String startup = Files.readString(broker.logFile(), StandardCharsets.ISO_8859_1).lines()
                .filter(l -> AgentLogLines.isAgentLine(l) && l.contains("active ("))
                .findFirst().orElseThrow(() -> new AssertionError("no start-up line in " + broker.logFile()));
            // the flush-log jobs of the last rolls run after produce returns: wait for them, bounded
            PrometheusScrape metrics = Polling.until(Duration.ofSeconds(60), () -> PrometheusScrape.scrape(port),
                m -> m.sum("stallscope_op_seconds_count", Map.of("op", "snapshot_flush", "role", "scheduler")) >= rolls);
            double deferred = metrics.sum("stallscope_mitigation_events_total", Map.of("mitigation", "roll-flush", "event", "deferred"));
            double flushedOnScheduler = metrics.sum("stallscope_op_seconds_count", Map.of("op", "snapshot_flush", "role", "scheduler"));
            assertThat(metrics.sum("stallscope_mitigation_events_total", Map.of("mitigation", "roll-flush", "event", "error"))).isZero();
            assertThat(flushedOnScheduler).as("snapshot fsyncs on the scheduler").isGreaterThanOrEqualTo(rolls);
            assertThat(metrics.sum("stallscope_op_seconds_count", Map.of("op", "snapshot_flush", "role", "request_handler"))).isZero();
            // the shim saw the calls inside the container: it wrote its log to the mounted host path
            List<ShimCall> fsyncs = disk.calls().stream()
                .filter(c -> c.path().endsWith(".snapshot") && c.call().startsWith("f")).toList();
            assertThat(fsyncs).hasSizeGreaterThanOrEqualTo((int) rolls)
                .allSatisfy(c -> assertThat(c.thread()).startsWith("kafka-schedule"));
            assertThat(KafkaClients.consumeAll(broker, topic, true, Duration.ofSeconds(60))).isEqualTo(records);
            if (version.isAtLeast(3, 7, 0)) {
                assertThat(startup).contains("roll-flush not needed on Kafka " + version);
                assertThat(deferred).isZero();
                return "not needed (Kafka fsyncs on the scheduler)";
            }
            assertThat(startup).contains("roll-flush on");
            assertThat(deferred).isGreaterThanOrEqualTo(rolls);
            return "passed: fsync moved to the scheduler";
        }
    }

    private void atStart(KafkaVersion version, Path jdk, String jdkLabel) throws Exception {
        String startup = AgentAtStartCheck.run(BrokerFactory.CONTAINER, version, jdk, broker -> {
            String cmd = Files.readString(broker.workDir().resolve("broker.cmd"));
            assertThat(cmd).as("the agent goes in through KAFKA_OPTS").contains("KAFKA_OPTS=-javaagent:" + AgentJar.path());
        });
        Matcher n = INSTRUMENTED.matcher(startup);
        assertThat(n.find()).as(startup).isTrue();
        Matcher skipped = SKIPPED.matcher(startup);
        String skippedText = skipped.find() ? skipped.group(1) : "none";
        VersionMatrix.RUN.record(version.toString(), jdkLabel, "instrumented", n.group(1) + " of " + n.group(2));
        VersionMatrix.RUN.record(version.toString(), jdkLabel, "skipped", skippedSummary(skippedText));
    }

    /** As an operator during an incident: docker exec into the broker's container, attach with its JDK, detach. */
    private void attachAndDetach(KafkaVersion version, Path jdk) throws Exception {
        String topic = "attached";
        BrokerSpec spec = BrokerSpec.builder(version).javaHome(jdk).name("container-attach").build();
        try (ContainerKafkaBroker broker = new ContainerKafkaBroker(spec)) {
            broker.start();
            KafkaClients.createTopic(broker, topic, 1, KafkaClients.SMALL_SEGMENTS);
            KafkaClients.produce(broker, topic, 500, 1024);
            String java = broker.javaHome().resolve("bin/java").toString();
            String jar = "/tmp/stallscope-agent.jar"; // copied in, as during an incident
            broker.copyIntoContainer(AgentJar.path(), jar);
            String pid = Long.toString(broker.pidInContainer());
            int port = FreePorts.next();

            var attached = broker.exec(java, "-jar", jar, "attach", pid,
                "prometheus=127.0.0.1:" + port, "topic.labels=true");
            String out = attached.getStdout() + attached.getStderr();
            assertThat(attached.getExitCode()).as(out).isZero();
            assertThat(out).contains("active (attach) in Kafka " + version)
                .contains("instrumented " + version.agentPoints() + " of " + KafkaVersion.AGENT_POINTS_ALL + " points");

            KafkaClients.produce(broker, topic, 3000, 1024);
            assertThat(KafkaClients.consumeAll(broker, topic, true, Duration.ofSeconds(60))).isEqualTo(3500);
            Map<String, String> ops = Map.of("records_append", "request_handler", "log_roll", "request_handler",
                "segment_read", "request_handler", "transfer_to", "network", "segment_flush", "scheduler");
            PrometheusScrape metrics = Polling.until(Duration.ofSeconds(30), () -> PrometheusScrape.scrape(port),
                m -> AgentAtStartCheck.missing(m, topic, ops).isEmpty());
            assertThat(AgentAtStartCheck.missing(metrics, topic, ops)).isEmpty();

            var detached = broker.exec(java, "-jar", jar, "detach", pid);
            assertThat(detached.getExitCode()).as(detached.getStdout() + detached.getStderr()).isZero();
            assertThat(detached.getStdout() + detached.getStderr()).contains("detached");
            assertThatThrownBy(() -> PrometheusScrape.scrape(port)).isInstanceOf(IOException.class);

            assertThat(broker.isRunning()).isTrue();
            KafkaClients.produce(broker, topic, 1000, 1024);
            assertThat(KafkaClients.consumeAll(broker, topic, true, Duration.ofSeconds(60))).isEqualTo(4500);
            String log = Files.readString(broker.logFile(), StandardCharsets.ISO_8859_1);
            assertThat(log.lines().filter(l -> AgentLogLines.isAgentLine(l) && l.contains("ERROR"))).isEmpty();
        }
    }

    /**
     * "snapshot_flush (expected before Kafka 3.7: there ...); x (y: z)" -> "snapshot_flush (expected before Kafka 3.7), x (y)":
     * the start-up line separates its skipped points with "; ".
     */
    static String skippedSummary(String skipped) {
        if (skipped.isBlank()) {
            return "none";
        }
        List<String> items = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i <= skipped.length(); i++) {
            char c = i < skipped.length() ? skipped.charAt(i) : ',';
            if (c == '(' || c == '[') depth++;
            if (c == ')' || c == ']') depth--;
            if ((c == ',' || c == ';') && depth == 0) {
                items.add(skipped.substring(start, i).strip());
                start = i + 1;
            }
        }
        List<String> out = new ArrayList<>();
        for (String item : items) {
            int open = item.indexOf(" (");
            if (open < 0) {
                out.add(item);
                continue;
            }
            String reason = item.substring(open + 2);
            int end = reason.indexOf(':');
            reason = end >= 0 ? reason.substring(0, end) : reason.substring(0, Math.max(0, reason.length() - 1));
            out.add(item.substring(0, open) + " (" + reason.strip() + ")");
        }
        return String.join(", ", out);
    }

    private static String firstLine(Throwable e) {
        String m = String.valueOf(e.getMessage()).strip();
        int nl = m.indexOf('\n');
        String line = nl < 0 ? m : m.substring(0, nl);
        return line.length() > 120 ? line.substring(0, 117) + "..." : line;
    }

    private static boolean officialImages() {
        return ContainerImages.source() == ContainerImages.Source.OFFICIAL;
    }

    private static long seconds(long t0) {
        return TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0);
    }

    private static Path realPath(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException e) {
            return p;
        }
    }
}
