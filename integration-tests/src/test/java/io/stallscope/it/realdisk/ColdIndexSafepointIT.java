package io.stallscope.it.realdisk;

import com.fasterxml.jackson.databind.JsonNode;
import io.stallscope.it.examples.AnalyzerCli;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 54 on a real slow disk, small enough for CI: {@link ColdIndexScenario} on Kafka 3.9.2, 64 MiB in 1 MiB
 * segments on a loop-device XFS, reads throttled to 256 KiB/s by the cgroup I/O controller, its indexes cold after a
 * clean restart, 20 s of random old fetches and timestamp lookups. The JVM's own witnesses say safepoints waited 50 ms
 * or more for request handlers; the agent's slow safepoint lines must name the index op of a cold partition that held
 * one up, and name nothing else; and the analyzer, on the run's JDK Flight Recorder recording alone, must pin 90% or
 * more of the slow safepoints it finds on such an index op. The mitigation's A/B and the warm control: scripts/bench-safepoint-index.
 */
class ColdIndexSafepointIT {
    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void aSafepointHeldUpByAColdIndexNamesTheIndexOp() throws Exception {
        RealDiskRequirement.assumeAvailable();
        Path dir = Path.of(System.getProperty("stallscope.it.target", "target"), "cold-index-safepoint").toAbsolutePath();
        ColdIndexScenario.Result r = ColdIndexScenario.run(
            // HotSpot's counters, the default on JDK 17 without a recording, though this broker records: the agent's
            // events from the counters must join the JVM's own in the analyzer (JFR's source: SafepointTimingTest)
            ColdIndexScenario.Options.of("xfs-cold", "3.9.2", 64, 1L << 20, 256, 20).recorded().safepointTiming("counters"),
            dir);
        System.out.print(ColdIndexScenario.Result.header() + r.row(1) + "\n");
        r.slowLines().stream().limit(5).forEach(l -> System.out.println("  " + l));
        assertThat(r.safepoints().atLeastMs(ColdIndexScenario.SLOW_MS)).as("safepoints of 50 ms or more (-Xlog:safepoint)")
            .isPositive();
        assertThat(r.jvmNamed()).as("the threads SafepointTimeout named").contains("request-handler");
        List<String> naming = r.slowLines().stream().filter(l -> l.contains(": behind ")).toList();
        assertThat(r.namingLookup()).as("slow safepoint lines naming an index op, of %d", r.slowLines().size()).isPositive();
        assertThat(naming).as("what they name: an index op on a file of the cold topic")
            .allSatisfy(l -> assertThat(l).containsPattern(": behind index_lookup .*/cold-[0-9]+/[0-9]{20}\\.(time)?index\\)"));

        // the analyzer, from the same run's recording alone (JFR: the JVM's safepoint events and the agent's)
        Path json = dir.resolve("report.json");
        AnalyzerCli.report(List.of(r.recording().toString(), "--json", json.toString()), dir.resolve("report.txt"));
        List<JsonNode> slow = new ArrayList<>();
        AnalyzerCli.json(json).path("safepoints").path("slow").forEach(slow::add);
        slow.stream().limit(5).forEach(n -> System.out.println("  analyzer: " + n.path("summary").asText()));
        assertThat(slow).as("slow safepoints the analyzer found in %s", r.recording()).isNotEmpty();
        List<JsonNode> namingIndex = slow.stream()
            .filter(n -> n.path("doing").path("text").asText("").contains("(index_lookup)")).toList();
        assertThat((double) namingIndex.size()).as("of %d slow safepoints, those the analyzer pins on an index op (%s)",
            slow.size(), dir.resolve("report.txt")).isGreaterThanOrEqualTo(0.9 * slow.size());
        assertThat(namingIndex).as("what it names: an index of the cold topic, as the recording says (not inferred)")
            .allSatisfy(n -> {
                assertThat(n.path("doing").path("text").asText()).containsPattern("/cold-[0-9]+/[0-9]{20}\\.(time)?index");
                assertThat(n.path("doing").path("source").asText()).isEqualTo("recorded");
            });
    }
}
