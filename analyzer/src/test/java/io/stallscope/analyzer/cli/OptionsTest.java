package io.stallscope.analyzer.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.stallscope.analyzer.workload.Recorder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/** --threads, --from/--to, --min-wait and --top narrow the report as they say, on a real recording. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OptionsTest {
    private Path jfr;
    private Path dir;

    @BeforeAll
    void record() throws Exception {
        jfr = Recorder.jdk("monitor");
        dir = Files.createTempDirectory("stallscope-options-");
    }

    private JsonNode report(String... extra) throws Exception {
        Path json = dir.resolve("r" + System.nanoTime() + ".json");
        String[] args = new String[extra.length + 4];
        args[0] = "report";
        args[1] = jfr.toString();
        args[2] = "--json";
        args[3] = json.toString();
        System.arraycopy(extra, 0, args, 4, extra.length);
        CliRun r = CliRun.of(args);
        assertThat(r.code()).as(r.err()).isZero();
        return new ObjectMapper().readTree(json.toFile());
    }

    private static double total(JsonNode root) {
        double t = 0;
        for (JsonNode c : root.get("contentions")) t += c.get("totalWaitMs").asDouble();
        return t;
    }

    @Test
    void threadsKeepsOnlyMatchingWaiters() throws Exception {
        JsonNode all = report();
        JsonNode one = report("--threads", "handler-2$");
        assertThat(one.at("/contentions/0/waiters")).hasSize(1);
        assertThat(one.at("/contentions/0/waiters/0/thread").asText()).isEqualTo("data-plane-kafka-request-handler-2");
        assertThat(total(one)).isLessThan(total(all));
    }

    @Test
    void fromAndToKeepOnlyWaitsInTheWindow() throws Exception {
        JsonNode all = report();
        // Split in the middle of the recording, not at a fixed second: on a loaded machine the child JVM can
        // take over a second to start, and the contention (4 s of it) with it.
        String middle = Math.round(all.get("durationMs").asDouble() / 2) + "ms";
        JsonNode firstHalf = report("--from", "0s", "--to", middle);
        JsonNode secondHalf = report("--from", middle);
        assertThat(total(firstHalf)).isPositive().isLessThan(total(all));
        assertThat(total(secondHalf)).isPositive().isLessThan(total(all));
    }

    /** A window that selects nothing is a usage error (one line, exit 2) naming the recording's span, not an empty report. */
    @Test
    void fromOrToOutsideTheRecordingOrInvertedIsRefused() throws Exception {
        JsonNode all = report();
        Instant start = Instant.parse(all.get("start").asText());
        assertUsage(CliRun.of("report", jfr.toString(), "--from", "1h"), "--from 1h is after the recording's end: the recording runs from "
                + start);
        assertUsage(CliRun.of("report", jfr.toString(), "--to", "2000-01-01T00:00:00Z"), "--to 2000-01-01T00:00:00Z is before the recording's start");
        // Of two kinds (an instant and an offset), known to be inverted only once the recording's start is read.
        String late = start.plusSeconds(2).toString();
        assertUsage(CliRun.of("report", jfr.toString(), "--from", late, "--to", "1s"), "--from " + late + " is after --to 1s");
        // Of one kind: refused before the file is even opened.
        assertUsage(CliRun.of("report", dir.resolve("not-there.jfr").toString(), "--from", "10s", "--to", "5s"), "--from 10s is after --to 5s");
    }

    private static void assertUsage(CliRun r, String contains) {
        assertThat(r.code()).as(r.err()).isEqualTo(Main.USAGE);
        assertThat(r.errLines()).as(r.err()).hasSize(1);
        assertThat(r.errLines().get(0)).startsWith("analyzer: ").contains(contains);
        assertThat(r.out()).isEmpty();
    }

    @Test
    void minWaitDropsShortWaits() throws Exception {
        JsonNode all = report();
        JsonNode longOnes = report("--min-wait", "50ms");
        int allWaits = all.at("/contentions/0/waitCount").asInt();
        int longWaits = longOnes.at("/contentions/0/waitCount").asInt();
        assertThat(longWaits).isPositive().isLessThan(allWaits);
        assertThat(longOnes.at("/contentions/0/longestWaitMs").asDouble()).isGreaterThanOrEqualTo(50);
    }

    @Test
    void topLimitsLocksAndFindings() throws Exception {
        JsonNode one = report("--top", "1");
        assertThat(one.get("contentions")).hasSize(1);
        assertThat(one.get("findings")).hasSize(1);
        assertThat(one.at("/findings/0/kind").asText()).isEqualTo("holder-blocked-in-file-io");
    }

    @Test
    void aDashWritesTheReportToStandardOutputInsteadOfTheText() throws Exception {
        Path file = dir.resolve("file.json");
        CliRun toFile = CliRun.of("report", jfr.toString(), "--json", file.toString());
        CliRun toStdout = CliRun.of("report", jfr.toString(), "--json", "-");
        assertThat(toStdout.code()).as(toStdout.err()).isZero();
        assertThat(toStdout.out()).isEqualTo(Files.readString(file));
        assertThat(new ObjectMapper().readTree(toStdout.out()).get("contentions")).isNotEmpty();
        assertThat(toFile.out()).contains("Contended locks (from lock events)");

        CliRun html = CliRun.of("report", jfr.toString(), "--html", "-");
        assertThat(html.code()).as(html.err()).isZero();
        assertThat(html.out()).startsWith("<!doctype html>").doesNotContain("Findings, most important first:");

        CliRun both = CliRun.of("report", jfr.toString(), "--json", "-", "--html", "-");
        assertThat(both.code()).isEqualTo(2);
        assertThat(both.err()).contains("only one of --json and --html can write to standard output");
    }
}
