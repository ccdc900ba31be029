package io.stallscope.analyzer.workload;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.stallscope.analyzer.analysis.Analysis;
import io.stallscope.analyzer.analysis.Finding;
import io.stallscope.analyzer.cli.Main;
import io.stallscope.analyzer.model.LogDir;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code write-behind-sendfile} on a real recording of {@link WriteBehindProgram} (async-profiler jfrsync: the
 * agent-shaped events and the stallscope.LogDir labels in the JDK chunk, wall samples in the profiler chunk),
 * checked against the program's own clock.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WriteBehindRecordingTest {
    record Truth(String writer, String reader, long writeFrom, long writeTo, long readFrom, long readTo) {
        long overlapNanos() {
            return Math.min(writeTo, readTo) - Math.max(writeFrom, readFrom);
        }
    }

    private Path jfr;
    private Map<String, Truth> truth;
    private List<Finding> findings;
    private JsonNode json;
    private String text;
    private String html;

    @BeforeAll
    void record() throws Exception {
        jfr = Recorder.writeBehind();
        truth = new HashMap<>();
        for (String line : Files.readAllLines(Recorder.truthOf(jfr))) {
            String[] p = line.split("\t");
            truth.put(p[0], new Truth(p[1], p[2], Long.parseLong(p[3]), Long.parseLong(p[4]), Long.parseLong(p[5]), Long.parseLong(p[6])));
        }
        Analysis a = ContentionRecordingTest.analyze(jfr);
        assertThat(a.recording().logDirs).extracting(LogDir::fileSystem).contains("xfs", "ext4");
        assertThat(a.recording().spans).as("LogDir events are facts, not spans")
                .noneMatch(s -> s.type().equals(LogDir.EVENT));
        findings = a.findings().stream().filter(f -> f.kind().equals(Finding.WRITE_BEHIND_SENDFILE)).toList();

        Path jsonFile = jfr.resolveSibling("write-behind.json");
        Path htmlFile = jfr.resolveSibling("write-behind.html");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(new String[] {"report", jfr.toString(), "--json", jsonFile.toString(), "--html", htmlFile.toString(),
                "--top", "50"}, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
        json = new ObjectMapper().readTree(jsonFile.toFile());
        text = out.toString(StandardCharsets.UTF_8);
        html = Files.readString(htmlFile);
    }

    private List<JsonNode> jsonFindings() {
        return StreamSupport.stream(json.get("findings").spliterator(), false)
                .filter(f -> f.get("kind").asText().equals("write-behind-sendfile")).toList();
    }

    private JsonNode jsonFinding(String writer) {
        return jsonFindings().stream().filter(f -> f.get("writerThread").asText().equals(writer)).findFirst().orElse(null);
    }

    @Test
    void anAppendOverlappingAReadOfItsFileOnXfsIsNamedWithBothThreadsTheFileAndTheOverlap() {
        Truth t = truth.get("xfs");
        JsonNode f = jsonFinding(t.writer());
        assertThat(f).as("finding for " + t + " in " + json.get("findings")).isNotNull();
        assertThat(f.get("readerThread").asText()).isEqualTo(t.reader());
        assertThat(f.get("writerOp").asText()).isEqualTo("records_append");
        assertThat(f.get("readerOp").asText()).isEqualTo("transfer_to");
        assertThat(f.get("path").asText()).endsWith("xfs-logs/orders-3/00000000000000000000.log");
        assertThat(f.get("topic").asText()).isEqualTo("orders");
        assertThat(f.get("partition").asInt()).isEqualTo(3);
        assertThat(f.get("fileSystem").asText()).isEqualTo("xfs");
        assertThat(f.get("device").asText()).isEqualTo("/dev/loop3");
        assertThat(f.get("logDir").asText()).endsWith("xfs-logs");
        // the overlap of the two spans, against the program's own clock (event time vs Instant.now: a few ms)
        assertThat(f.get("overlapMs").asDouble()).isCloseTo(t.overlapNanos() / 1e6, org.assertj.core.data.Offset.offset(10.0));
        assertThat(f.get("overlapMs").asDouble()).isGreaterThan(100);
        assertThat(f.get("threads").get(0).asText()).isEqualTo(t.writer());
        assertThat(f.get("threads").get(1).asText()).isEqualTo(t.reader());
        assertThat(f.get("summary").asText()).contains(t.writer()).contains(t.reader()).contains("for orders-3")
                .contains("XFS holds the file's inode lock (IOLOCK) shared during sendfile's disk wait");
        assertThat(f.get("evidence").toString()).contains("segment.bytes").contains("prefetch");
        assertThat(text).contains("[write-behind-sendfile] records_append").contains(t.writer());
        // the HTML lists it, with a link to the moment on both threads' lanes
        assertThat(html).contains("write-behind-sendfile</span>").contains("show on the timeline").contains("#filter=");
    }

    @Test
    void theExt4ControlRaisesNothingThoughTheSpansOverlapAlike() {
        Truth t = truth.get("ext4");
        assertThat(t.overlapNanos()).as("the control's spans do overlap").isGreaterThan(100_000_000L);
        assertThat(findings).noneMatch(f -> f.threads().contains(t.writer()) || f.summary().contains("orders-4"));
    }

    @Test
    void aReaderOfAnotherFileRaisesNothing() {
        Truth t = truth.get("other-file");
        assertThat(t.overlapNanos()).isGreaterThan(100_000_000L);
        assertThat(findings).noneMatch(f -> f.threads().contains(t.writer()) || f.threads().contains(t.reader()));
    }

    @Test
    void aMethodNamedLikeTransferToIsNoSendfile() throws Exception {
        Truth t = truth.get("trap");
        Analysis a = ContentionRecordingTest.analyze(jfr);
        // the trap is really in the recording: the reader was sampled in lambda$transferToBgThread$N during the append
        int reader = a.recording().threads.stream().filter(th -> th.name().equals(t.reader())).findFirst().orElseThrow().id();
        long inTrap = 0;
        for (var c = a.recording().samples.lane(reader).cursorAt(t.writeFrom()); c.next() && c.time() <= t.writeTo(); ) {
            if (a.frames(c.stack(), 12).contains("lambda$transferToBgThread$")) inTrap += c.weight();
        }
        assertThat(inTrap).as("samples of the trap thread inside lambda$transferToBgThread$N during the append").isGreaterThanOrEqualTo(2);
        assertThat(findings).noneMatch(f -> f.threads().contains(t.writer()) || f.threads().contains(t.reader()));
    }

    @Test
    void aSendfileSeenOnlyInSamplesCountsWithItsFileUnnamed() {
        Truth t = truth.get("samples");
        JsonNode f = jsonFinding(t.writer());
        assertThat(f).as("finding for " + t + " in " + json.get("findings")).isNotNull();
        assertThat(f.get("readerThread").asText()).isEqualTo(t.reader());
        assertThat(f.get("readSource").asText()).isEqualTo("samples");
        assertThat(f.get("readerOp").asText()).isEqualTo("sendfile");
        assertThat(f.get("partition").asInt()).isEqualTo(8);
        assertThat(f.get("overlapMs").asDouble()).isGreaterThan(20).isLessThanOrEqualTo(f.get("writeMs").asDouble());
        assertThat(f.get("summary").asText()).contains("its file is not in the recording");
    }

    @Test
    void withoutALogDirEventOnlyALongWriteFiresAndItDoesNotClaimXfs() {
        Truth shortOne = truth.get("unknown-short");
        Truth longOne = truth.get("unknown-long");
        assertThat(shortOne.overlapNanos()).as("long enough to fire on XFS").isGreaterThan(20_000_000L);
        assertThat(findings).noneMatch(f -> f.threads().contains(shortOne.writer()));
        JsonNode f = jsonFinding(longOne.writer());
        assertThat(f).as("finding for " + longOne + " in " + json.get("findings")).isNotNull();
        assertThat(f.get("fileSystem").asText()).isEqualTo("unknown");
        assertThat(f.get("summary").asText()).contains("file system unknown: the agent's stallscope.LogDir event is missing")
                .doesNotContain("XFS holds");
    }

    @Test
    void aWriteKnownOnlyFromTheJdksFileWriteEventCounts() {
        Truth t = truth.get("jdk-write");
        // The reader drains the FIFO 200 ms late, but a profiler signal can cut the blocked write(2) short (47.6 ms once
        // on a loaded machine): what the finding needs is a write past its XFS threshold.
        assertThat(t.writeTo() - t.writeFrom()).as("the FIFO made the write(2) last").isGreaterThan(20_000_000L);
        JsonNode f = jsonFinding(t.writer());
        assertThat(f).as("finding for " + t + " in " + json.get("findings")).isNotNull();
        assertThat(f.get("writeSource").asText()).isEqualTo("jdk.FileWrite");
        assertThat(f.get("writerOp").asText()).isEqualTo("write");
        assertThat(f.get("readerThread").asText()).isEqualTo(t.reader());
        assertThat(f.get("topic").asText()).isEqualTo("orders");
        assertThat(f.get("partition").asInt()).isEqualTo(11);
        assertThat(f.get("fileSystem").asText()).isEqualTo("xfs");
        assertThat(f.get("overlapMs").asDouble()).isCloseTo(t.overlapNanos() / 1e6, org.assertj.core.data.Offset.offset(10.0));
    }

    @Test
    void onlyTheExpectedAppendsAreFindings() {
        assertThat(findings).extracting(f -> f.threads().get(0)).containsExactlyInAnyOrder(truth.get("xfs").writer(),
                truth.get("samples").writer(), truth.get("unknown-long").writer(), truth.get("jdk-write").writer());
    }
}
