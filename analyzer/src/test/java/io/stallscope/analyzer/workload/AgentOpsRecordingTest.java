package io.stallscope.analyzer.workload;

import com.fasterxml.jackson.databind.JsonNode;
import io.stallscope.analyzer.analysis.Analysis;
import io.stallscope.analyzer.analysis.Finding;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.Span;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real recordings with the agent's events: {@link AgentOpsProgram} declares events named and shaped exactly like
 * the agent's {@code stallscope.RecordsAppend} / {@code stallscope.SegmentFlush} (the analyzer module cannot start
 * a broker; the broker + agent + capture end-to-end is in integration-tests) while handler-named threads contend
 * for a monitor whose holder writes and fsyncs inside the op. Recorded by JDK Flight Recorder, and by
 * async-profiler's jfrsync (the spike capture's format: JDK chunk with the events, profiler chunk with wall
 * samples). Checked against the program's own log of every op.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AgentOpsRecordingTest {

    record Op(String thread, String op, int partition, long from, long to, long nanos) {
    }

    static List<Op> truth(Path jfr) throws Exception {
        List<Op> ops = new ArrayList<>();
        for (String line : Files.readAllLines(Recorder.truthOf(jfr))) {
            String[] p = line.split("\t");
            ops.add(new Op(p[0], p[1], Integer.parseInt(p[2]), Long.parseLong(p[3]), Long.parseLong(p[4]), Long.parseLong(p[5])));
        }
        return ops;
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "jfrsync"})
    void everyOpIsASpanOnItsThreadWithItsExactDuration(String how) throws Exception {
        Path jfr = Recorder.agentOps(how);
        List<Op> truth = truth(jfr);
        Recording rec = ContentionRecordingTest.analyze(jfr).recording();
        // Same ops, same threads, same partitions, same nanosecond durations (opDuration is the program's own).
        Map<String, Long> expected = new TreeMap<>(truth.stream().collect(Collectors.groupingBy(
                o -> o.thread() + " " + o.op() + " " + o.partition() + " " + o.nanos(), Collectors.counting())));
        Map<String, Long> read = new TreeMap<>(rec.spans.stream().collect(Collectors.groupingBy(
                s -> rec.threadName(s.thread()) + " " + s.op() + " " + s.partition() + " " + s.duration(), Collectors.counting())));
        assertThat(truth).hasSizeGreaterThan(20);
        assertThat(read).isEqualTo(expected);
        // Each span ends when its op ended (the event is committed then): within a few ms of the program's clock.
        List<Long> gaps = new ArrayList<>();
        for (Span s : rec.spans) {
            Op nearest = truth.stream().filter(o -> o.thread().equals(rec.threadName(s.thread())) && o.nanos() == s.duration())
                    .min((x, y) -> Long.compare(Math.abs(x.to() - s.end()), Math.abs(y.to() - s.end()))).orElseThrow();
            gaps.add(Math.abs(nearest.to() - s.end()));
        }
        gaps.sort(null);
        assertThat(gaps.get(gaps.size() / 2)).as("median |span end - op end| in ns").isLessThan(5_000_000L);
        for (Span s : rec.spans) {
            assertThat(s.topic()).isEqualTo("orders");
            assertThat(s.path()).endsWith("orders-" + s.partition() + ".log");
            assertThat(s.threadRole()).isIn("request_handler", "scheduler");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "jfrsync"})
    void anAppendThatHeldTheLockWhileOtherHandlersWaitedIsFoundAndRankedByImpact(String how) throws Exception {
        Path jfr = Recorder.agentOps(how);
        List<Op> truth = truth(jfr);
        Analysis a = ContentionRecordingTest.analyze(jfr);
        // Findings by harm to clients (request-path stall time, weighted by how many at once), except that the generic
        // ranking of locks yields to the specific findings explaining a tenth of it or more; those that hurt none after.
        List<Finding> specific = a.findings().stream().filter(f -> !f.kind().equals(Finding.CONTENDED_LOCKS)).toList();
        for (int i = 1; i < specific.size(); i++) {
            assertThat(specific.get(i).harm().score()).as("harm of finding %d", i).isLessThanOrEqualTo(specific.get(i - 1).harm().score());
        }
        Finding first = a.findings().stream().filter(f -> f.kind().equals(Finding.STALLED_OP_UNDER_LOCK)).findFirst().orElseThrow();
        // Durations in whatever unit the report gives them: a CI run's disk held one write(2) for 3.6 s, and the
        // handlers' total read "10.3 s".
        assertThat(first.summary()).matches("\\d+ handlers? waited [0-9.]+ (ms|s|h) for (its|log \\S+'s) lock .*, held by "
                + "data-plane-kafka-request-handler-\\d in records_append [0-9.]+ (ms|s|h).* for orders-\\d.*");
        String holder = first.threads().get(0);
        assertThat(first.threads().subList(1, first.threads().size())).isNotEmpty()
                .allMatch(t -> t.startsWith("data-plane-kafka-request-handler-") && !t.equals(holder));
        assertThat(first.evidence()).anySatisfy(e -> assertThat(e).startsWith("span stallscope.RecordsAppend: records_append on " + holder));
        // Both carry jdk.JavaMonitorEnter with previousOwner: the holder is recorded, not inferred.
        assertThat(first.evidence()).anySatisfy(e -> assertThat(e).startsWith("holder " + holder + " (recorded"));
        // The anchored op is one the program really ran on that thread, with that partition.
        String partition = first.summary().replaceAll(".* in records_append [0-9.]+ (ms|s|h) for orders-(\\d+)\\b.*", "$2");
        assertThat(truth).anyMatch(o -> o.thread().equals(holder) && o.op().equals("records_append")
                && o.partition() == Integer.parseInt(partition));

        JsonNode root = ContentionRecordingTest.cliJson(jfr);
        assertThat(StreamSupport.stream(root.get("findings").spliterator(), false).map(f -> f.get("kind").asText()))
                .contains(Finding.STALLED_OP_UNDER_LOCK);
        List<JsonNode> spans = StreamSupport.stream(root.get("spans").spliterator(), false).toList();
        assertThat(spans).hasSize(truth.size());
        assertThat(spans).allSatisfy(s -> {
            assertThat(s.get("thread").asText()).matches("data-plane-kafka-request-handler-\\d|kafka-scheduler-0");
            assertThat(s.get("op").asText()).isIn("records_append", "segment_flush");
            assertThat(s.get("start").asText()).endsWith("Z");
            assertThat(s.get("durationMs").isNumber()).isTrue();
            assertThat(s.get("topic").asText()).isEqualTo("orders");
            assertThat(s.get("partition").isInt()).isTrue();
            assertThat(s.get("bytes").isNumber()).isTrue();
        });
    }
}
