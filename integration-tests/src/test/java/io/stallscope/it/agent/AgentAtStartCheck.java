package io.stallscope.it.agent;

import io.stallscope.it.broker.PrometheusScrape;
import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.FreePorts;
import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.KafkaVersion;
import io.stallscope.it.container.BrokerFactory;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent given to a real broker at start, as an operator does with KAFKA_OPTS, checked the same way
 * for a broker in a child JVM ({@link AgentAtStartIT}) and in a container ({@link AgentMatrixContainerIT}):
 * every point is recorded with the right topic-partition and thread role, served on the Prometheus
 * endpoint, logged as slow ops and emitted as JFR events; the broker log has one start-up line and no
 * agent error.
 */
final class AgentAtStartCheck {
    static final String TOPIC = "stalls";
    private static final int RECORDS = 5000;
    private static final int RECORD_SIZE = 1024;

    interface BrokerCheck {
        void check(KafkaBroker broker) throws Exception;
    }

    private AgentAtStartCheck() {
    }

    /** Which op each thread role must show for a produce-roll-fetch cycle on this version. */
    static Map<String, String> expectedOps(KafkaVersion v) {
        Map<String, String> ops = new LinkedHashMap<>();
        ops.put("records_append", "request_handler");
        ops.put("log_roll", "request_handler");
        ops.put("segment_inactive", "request_handler");
        ops.put("index_resize", "request_handler");
        ops.put("snapshot_take", "request_handler");
        ops.put("snapshot_write", "request_handler");
        ops.put("segment_read", "request_handler");
        ops.put("segment_flush", "scheduler");
        ops.put("transfer_to", "network");
        ops.put("tls_transfer", "network");
        ops.put("log_append", "request_handler"); // the append under the log's lock, around records_append
        ops.put("index_lookup", "request_handler"); // a fetch translating its offset in the offset index
        if (v.isAtLeast(3, 7, 0)) {
            ops.put("snapshot_flush", "scheduler"); // KAFKA-15046 moved the snapshot fsync to the flush-log job
        }
        // index_remap_wait is not expected: it is timed only when a lookup waits behind a resize; the remote_* ops
        // only on a topic with tiered storage
        return ops;
    }

    /**
     * Starts a broker of {@code kind} with the agent, runs {@code afterStart} on it (checks of that kind of
     * broker), produces through segment rolls, consumes over PLAINTEXT and TLS, and checks what the agent
     * reported. Returns the agent's start-up line.
     */
    static String run(BrokerFactory kind, KafkaVersion version, Path jdk, BrokerCheck afterStart) throws Exception {
        int port = FreePorts.next();
        Path jfr = Files.createTempDirectory("stallscope-jfr").resolve("broker.jfr");
        BrokerSpec spec = BrokerSpec.builder(version).javaHome(jdk).name(kind == BrokerFactory.LOCAL ? "agent-at-start" : "container-agent")
            .javaAgent(AgentJar.path(), "prometheus=127.0.0.1:" + port
                + ",topic.labels=true,slow.threshold=0,slow.log.per.minute=1000000,jfr.threshold=0")
            .jvmArg("-XX:StartFlightRecording=filename=" + jfr + ",dumponexit=true,settings=default")
            .withSslListener()
            .build();
        String startup;
        try (KafkaBroker broker = kind.create(spec)) {
            broker.start();
            afterStart.check(broker);
            KafkaClients.createTopic(broker, TOPIC, 1, KafkaClients.SMALL_SEGMENTS);
            assertThat(KafkaClients.produce(broker, TOPIC, RECORDS, RECORD_SIZE)).isEqualTo(RECORDS);
            assertThat(KafkaClients.consumeAll(broker, TOPIC, true, Duration.ofSeconds(60))).isEqualTo(RECORDS);
            Map<String, Object> tls = new HashMap<>(KafkaClients.consumerConfig(broker));
            tls.putAll(broker.sslClientProperties());
            tls.put("bootstrap.servers", broker.sslBootstrapServers());
            assertThat(KafkaClients.consumeAll(tls, TOPIC, true, Duration.ofSeconds(60))).isEqualTo(RECORDS);

            Map<String, String> expected = expectedOps(version);
            PrometheusScrape metrics = Polling.until(Duration.ofSeconds(30), () -> PrometheusScrape.scrape(port),
                m -> missing(m, TOPIC, expected).isEmpty());
            assertThat(missing(metrics, TOPIC, expected)).as("ops not seen with their role and partition").isEmpty();
            assertThat(metrics.sum("stallscope_op_bytes_total", Map.of("op", "records_append", "role", "request_handler")))
                .isGreaterThanOrEqualTo((double) RECORDS * RECORD_SIZE);
            assertThat(metrics.sum("stallscope_advice_errors_total", Map.of())).isZero();
            // histogram buckets from 10 us to 10 s
            assertThat(metrics.text()).contains("stallscope_op_seconds_bucket{op=\"records_append\",role=\"request_handler\",le=\"0.00001\"}")
                .contains("stallscope_op_seconds_bucket{op=\"records_append\",role=\"request_handler\",le=\"10.0\"}");

            int instrumented = version.agentPoints();
            assertThat(metrics.sum("stallscope_agent_info", Map.of("kafka", version.toString(), "mode", "premain",
                "points", instrumented + "/" + KafkaVersion.AGENT_POINTS_ALL, "mitigations", "none", "topic_labels", "true"))).isEqualTo(1.0);

            String log = Files.readString(broker.logFile(), StandardCharsets.ISO_8859_1);
            List<String> agentLines = log.lines().filter(AgentLogLines::isAgentLine)
                .collect(Collectors.toList());
            startup = agentLines.stream().filter(l -> l.contains("Stallscope ") && l.contains("active (premain)"))
                .findFirst().orElseThrow(() -> new AssertionError("no start-up line in " + broker.logFile()));
            int points = instrumented;
            assertThat(startup).contains("in Kafka " + version)
                .contains("instrumented " + points + " of " + KafkaVersion.AGENT_POINTS_ALL + " points")
                .contains("prometheus on http://127.0.0.1:" + port + "/metrics");
            if (!version.isAtLeast(3, 7, 0)) {
                assertThat(startup).contains("snapshot_flush (expected before Kafka 3.7");
            }
            if (!version.isAtLeast(3, 5, 0)) {
                assertThat(startup).contains("remote_fetch (expected before Kafka 3.5: no tiered storage (KIP-405)")
                    .contains("remote_copy (expected before Kafka 3.5");
            }
            if (!version.isAtLeast(3, 6, 0)) {
                assertThat(startup).contains("remote_read (expected before Kafka 3.6: no reads from the remote tier");
            }
            if (!version.hasIndexRemapLock()) {
                assertThat(startup).contains("index_remap_wait (expected outside Kafka 3.9.2..4.0.0, 4.0.2..4.1.0, 4.1.1..: no remap lock");
            }
            assertThat(agentLines.stream().filter(l -> l.contains("Stallscope ") && l.contains("active (")))
                .as("exactly one start-up line").hasSize(1);
            assertThat(agentLines.stream().filter(l -> l.contains("ERROR"))).as("agent errors").isEmpty();
            assertThat(agentLines.stream().filter(l -> l.contains("slow op=records_append")
                && l.contains("role=request_handler") && l.contains("topic=" + TOPIC + " partition=0")
                && l.contains("bytes="))).as("slow-op lines").isNotEmpty();

            broker.stop(); // dumps the JFR recording
        }
        assertThat(jfr).as("JFR recording written by the broker").exists();
        Map<String, Long> events = jfrEventsOnTopic(jfr);
        assertThat(events).containsKeys("stallscope.RecordsAppend", "stallscope.LogRoll", "stallscope.TransferTo",
            "stallscope.SegmentFlush", "stallscope.IndexResize");
        return startup;
    }

    /** (op, role) pairs missing from the per-topic histogram for partition 0 of the topic. */
    static List<String> missing(PrometheusScrape metrics, String topic, Map<String, String> expected) {
        List<String> missing = new ArrayList<>();
        expected.forEach((op, role) -> {
            double n = metrics.sum("stallscope_op_topic_seconds_count",
                Map.of("op", op, "role", role, "topic", topic, "partition", "0"));
            if (n <= 0) {
                missing.add(op + "/" + role);
            }
        });
        return missing;
    }

    private static Map<String, Long> jfrEventsOnTopic(Path jfr) throws Exception {
        Map<String, Long> counts = new HashMap<>();
        try (RecordingFile file = new RecordingFile(jfr)) {
            while (file.hasMoreEvents()) {
                RecordedEvent e = file.readEvent();
                String type = e.getEventType().getName();
                // op events only: stallscope.LogDir (one per log dir and chunk) has no topic
                if (type.startsWith("stallscope.") && e.hasField("topic") && TOPIC.equals(e.getString("topic"))
                    && e.getInt("partition") == 0) {
                    counts.merge(type, 1L, Long::sum);
                }
            }
        }
        return counts;
    }
}
