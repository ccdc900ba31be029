package io.stallscope.it.agent;

import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.LocalKafkaBroker;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The stop/start breakdown on a real broker with the agent at start: a SIGTERM stop writes its breakdown to the
 * broker's log before the JVM exits, its phases nest and fit in the stop, and its counts are
 * the broker's own logs and segments; the next start says the previous stop was clean, and after a SIGKILL the
 * start says it was not and shows the segments recovered (on 4.4; 2.8 would wait out a ZooKeeper session).
 * Small data: about 25 s per version.
 */
class StopStartBreakdownIT {
    private static final String TOPIC = "stops";
    private static final int PARTITIONS = 3;

    @ParameterizedTest(name = "Kafka {0}")
    @ValueSource(strings = {"2.8.2", "4.4.0"})
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aStopAndTheStartsAfterItAreBrokenDown(String version) throws Exception {
        Path jfr = Files.createTempDirectory("stallscope-stopstart").resolve("broker.jfr");
        BrokerSpec spec = BrokerSpec.builder(version).name("stopstart")
            .javaAgent(AgentJar.path(), "stop.progress=1s")
            .jvmArg("-XX:StartFlightRecording=filename=" + jfr + ",dumponexit=true,settings=default")
            .build();
        try (LocalKafkaBroker broker = new LocalKafkaBroker(spec)) {
            broker.start();
            KafkaClients.createTopic(broker, TOPIC, PARTITIONS, KafkaClients.SMALL_SEGMENTS);
            assertThat(KafkaClients.produce(broker, TOPIC, 6_000, 1_000)).isEqualTo(6_000);
            int segments = 0;
            for (int p = 0; p < PARTITIONS; p++) {
                segments += segmentFiles(broker.dataDir().resolve(TOPIC + "-" + p)).size();
            }
            assertThat(segments).as("the data rolled").isGreaterThan(PARTITIONS);

            broker.stop();
            String log = read(broker.logFile());
            String stop = last(log, "stop breakdown: ");
            assertThat(stop).as("measured from the JVM's shutdown (SIGTERM)").contains("from the start of shutdown");
            long logs = count(stop, "logs,");
            assertThat(logs).as("logs closed: the topic's partitions and the broker's internal ones")
                .isGreaterThanOrEqualTo(PARTITIONS);
            assertThat(count(stop, "segments,")).as("segments closed, at least those of the topic").isGreaterThanOrEqualTo(segments);
            Matcher flushed = Pattern.compile("logs flushed \\((\\d+) segments of (\\d+\\.\\d) MiB\\)").matcher(stop);
            assertThat(flushed.find()).as("segments and bytes flushed in %s", stop).isTrue();
            assertThat(Long.parseLong(flushed.group(1))).as("every partition's active segment holds unflushed data")
                .isGreaterThanOrEqualTo(PARTITIONS);
            if (version.startsWith("2.")) {
                // 2.8's segment close appends the max timestamp and trims the indexes it loaded (KAFKA-5297's
                // path); 4.x closes a segment without loading its lazy indexes, so there may be nothing to trim
                assertThat(count(stop, "index files trimmed,")).isGreaterThan(0);
            }
            double total = seconds(stop, "shutdown");
            double logManager = seconds(stop, ", log manager");
            double flushing = seconds(stop, "flushing logs");
            double closing = seconds(stop, "closing logs");
            double segmentsClosing = seconds(stop, "closing segments");
            double inside = seconds(stop, "index trim") + seconds(stop, "time-index last entry")
                + seconds(stop, "file truncation");
            double checkpoints = seconds(stop, "checkpoints");
            assertThat(total).as("from the signal, so at least the log manager's part").isGreaterThanOrEqualTo(logManager);
            assertThat(segmentsClosing).as("segments close inside their log's close").isLessThanOrEqualTo(closing + 0.001);
            assertThat(inside).as("trim, last entry and truncation happen inside the segments' close")
                .isLessThanOrEqualTo(segmentsClosing + 0.003);
            if (stop.contains("rest of the log manager")) {
                // one closing thread: the phases fit in the log manager's wall time
                assertThat(flushing + closing + checkpoints).isLessThanOrEqualTo(logManager + 0.003);
            }
            String perDir = last(log, "stop breakdown per log dir: ");
            assertThat(perDir).contains(broker.dataDir().toString() + ": " + logs + " logs");
            String slowest = last(log, "stop breakdown, slowest logs (flush and close): ");
            assertThat(slowest).doesNotContain("none");
            // the end of the broker's own shutdown (controller, raft, ZooKeeper client after the log manager)
            Matcher end = Pattern.compile("stop breakdown, end: (\\d+\\.\\d{3}) s from the start of shutdown to the end"
                + " of the broker's shutdown; up to the end of the log manager's (\\d+\\.\\d{3}) s, after it"
                + " (\\d+\\.\\d{3}) s").matcher(last(log, "stop breakdown, end: "));
            assertThat(end.find()).as("the end line after the log manager's").isTrue();
            assertThat(Double.parseDouble(end.group(2))).as("the same start as the stop line").isCloseTo(total,
                org.assertj.core.data.Offset.offset(0.0015));
            assertThat(Double.parseDouble(end.group(1))).isCloseTo(total + Double.parseDouble(end.group(3)),
                org.assertj.core.data.Offset.offset(0.0015));

            broker.start();
            assertThat(last(read(broker.logFile()), "start breakdown: ")).contains("previous stop clean")
                .contains(" logs loaded in ");
            if (version.startsWith("2.")) {
                // a SIGKILL on ZooKeeper-based 2.8 costs a session timeout before the broker re-registers:
                // the unclean stop is shown on the KRaft version only, within the CI budget
                return;
            }
            assertThat(KafkaClients.produce(broker, TOPIC, 2_000, 1_000)).isEqualTo(2_000);

            broker.kill();
            broker.start();
            String start = last(read(broker.logFile()), "start breakdown: ");
            assertThat(start).contains("previous stop NOT clean in 1 of 1 log dirs");
            assertThat(count(start, "segments recovered in")).as("recovery after SIGKILL").isGreaterThan(0);
            assertThat(last(read(broker.logFile()), "start breakdown, slowest logs (load and recovery): "))
                .containsPattern(TOPIC + "-\\d");

            // the recording of this last JVM, dumped at its exit, holds the start's event; a stop's own event
            // races the JVM's dump-on-exit hook (docs/stop-start.md)
            broker.stop();
            // what JFR's own dump-on-exit hook caught of the stop (it runs beside Kafka's): reported, not asserted
            System.out.printf("Kafka %s: dumponexit recording holds %d stop and %d stop-end events%n", version,
                events(jfr, "stop").size(), events(jfr, "stop end").size());
            assertThat(events(jfr, "start")).as("the start breakdown as a JFR event").anySatisfy(e -> {
                assertThat(e.getString("previousStop")).startsWith("NOT clean");
                assertThat(e.getLong("segments")).isEqualTo(count(start, "segments recovered in"));
                assertThat(e.getString("slowestLogs")).contains(TOPIC + "-");
            });
        }
    }

    private static List<Path> segmentFiles(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".log")).toList();
        }
    }

    private static String read(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.ISO_8859_1);
    }

    /** The last line holding the marker, from the marker on. */
    private static String last(String log, String marker) {
        int at = log.lastIndexOf(marker);
        assertThat(at).as("a line with '%s' in the broker log", marker).isGreaterThanOrEqualTo(0);
        int end = log.indexOf('\n', at);
        return log.substring(at, end < 0 ? log.length() : end);
    }

    /** The number right before "what" ("12 segments,"). */
    private static long count(String line, String what) {
        Matcher m = Pattern.compile("(\\d+) " + Pattern.quote(what)).matcher(line);
        assertThat(m.find()).as("'N %s' in %s", what, line).isTrue();
        return Long.parseLong(m.group(1));
    }

    /** The seconds given right after a phase's name ("closing logs 0.012 s"), or after "shutdown ...". */
    private static double seconds(String line, String phase) {
        if (phase.equals("shutdown")) {
            Matcher m = Pattern.compile("stop breakdown: (\\d+\\.\\d{3}) s").matcher(line);
            assertThat(m.find()).isTrue();
            return Double.parseDouble(m.group(1));
        }
        Matcher m = Pattern.compile(Pattern.quote(phase) + " (\\d+\\.\\d{3}) s").matcher(line);
        assertThat(m.find()).as("'%s N s' in %s", phase, line).isTrue();
        return Double.parseDouble(m.group(1));
    }

    private static List<RecordedEvent> events(Path jfr, String kind) throws IOException {
        List<RecordedEvent> out = new ArrayList<>();
        try (RecordingFile file = new RecordingFile(jfr)) {
            while (file.hasMoreEvents()) {
                RecordedEvent e = file.readEvent();
                if (e.getEventType().getName().equals("stallscope.StopStartBreakdown") && kind.equals(e.getString("kind"))) {
                    out.add(e);
                }
            }
        }
        return out;
    }
}
