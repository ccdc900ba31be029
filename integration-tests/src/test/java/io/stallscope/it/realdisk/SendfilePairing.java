package io.stallscope.it.realdisk;

import com.fasterxml.jackson.databind.JsonNode;
import io.stallscope.it.examples.AnalyzerCli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Who LINE's slow appends were said to wait for (issue 41): the agent's live pairing in its slow-op lines, and the
 * analyzer's write-behind-sendfile findings on the same run's capture, the two witnesses a test or bench compares.
 */
final class SendfilePairing {
    /**
     * Slow-op lines from 20 ms, as the JDK's witness counts blocked writes, and all of them (the default 60 a minute
     * logged 30 of some 50 in a catch-up): every slow append is checked, not a sample.
     */
    static final String AGENT_OPTIONS = "slow.threshold.records_append=20ms,slow.log.per.minute=600";
    /** What the agent says of a write that waited for a network thread's sendfile of the segment it writes, on XFS. */
    private static final Pattern BEHIND_SENDFILE = Pattern.compile(
        ": behind transfer_to [0-9.]+ ms( so far)? of the same file on network thread \"[^\"]*-network-thread-[^\"]*\" \\(xfs\\)");

    private SendfilePairing() {
    }

    /** Lines that name a network thread's transfer_to of the same file on XFS. */
    static long namingTheSendfile(List<String> slowAppendLines) {
        return slowAppendLines.stream().filter(l -> BEHIND_SENDFILE.matcher(l).find()).count();
    }

    /** Lines that name any culprit at all. */
    static long namingAnyone(List<String> slowAppendLines) {
        return slowAppendLines.stream().filter(l -> l.contains(": behind ")).count();
    }

    /** The analyzer's JSON report on the run's agent capture (written in the run's dir). */
    static JsonNode analyzerReport(LineScenario.Result r) throws Exception {
        Path json = r.dir().resolve("report.json");
        AnalyzerCli.report(List.of(r.capture().toString(), "--json", json.toString(), "--top", "50"), r.dir().resolve("report.txt"));
        return AnalyzerCli.json(json);
    }

    /** The analyzer's write-behind-sendfile findings on the run's agent capture. */
    static List<JsonNode> analyzerFindings(LineScenario.Result r) throws Exception {
        return sendfileFindings(r, analyzerReport(r));
    }

    /** The report's write-behind-sendfile findings, in its order. */
    static List<JsonNode> sendfileFindings(LineScenario.Result r, JsonNode report) {
        List<JsonNode> out = new ArrayList<>();
        report.path("findings").forEach(f -> {
            if (f.path("kind").asText().equals("write-behind-sendfile")) {
                out.add(f);
            }
        });
        System.out.println(r.disk() + ": " + out.size() + " write-behind-sendfile finding(s), the first finding "
            + report.path("findings").path(0).path("kind").asText("none") + ", in " + r.dir().resolve("report.json"));
        return out;
    }

    /**
     * Issue 42: the report leads with the stall the producer felt, the append behind the sendfile, told down to why the
     * sendfile was slow (on the throttled disk it reads at a disk's pace: the cold read, or what the agent recorded).
     */
    static void assertFirstFindingIsTheSendfileStall(LineScenario.Result r, JsonNode report) {
        JsonNode first = report.path("findings").path(0);
        assertThat(first.path("kind").asText())
            .as("the first finding of the analyzer's report of " + r.capture()).isEqualTo("write-behind-sendfile");
        JsonNode chain = first.path("chain");
        JsonNode last = chain.path(chain.size() - 1);
        System.out.println(r.disk() + ": the first finding's chain ends with " + last.path("step").asText() + ": "
            + last.path("text").asText() + " [" + last.path("source").asText() + "]");
        assertThat(chain.size()).as("links of the first finding's chain in " + r.dir().resolve("report.json")).isEqualTo(4);
        assertThat(last.path("step").asText()).as("its last link").isEqualTo("slow because");
    }
}
