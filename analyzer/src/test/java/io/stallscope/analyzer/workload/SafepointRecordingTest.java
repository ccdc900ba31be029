package io.stallscope.analyzer.workload;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.stallscope.analyzer.analysis.Analysis;
import io.stallscope.analyzer.analysis.holders.SlowSafepoint;
import io.stallscope.analyzer.analysis.Options;
import io.stallscope.analyzer.analysis.StreamingAnalysis;
import io.stallscope.analyzer.cli.Main;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.read.JfrFileReader;
import io.stallscope.analyzer.render.HtmlReport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.StreamSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Slow safepoints named from a real recording: {@link SafepointProgram} holds safepoints up with C2-compiled counted
 * loops that have no safepoint poll (150-300 ms each) while another thread asks for a thread dump every 20 ms,
 * recorded by async-profiler's jfrsync (the JVM's safepoint events and agent-shaped events in the JDK chunk, wall
 * samples in the other). Checked against the program's own log of each loop: a sync inside a {@code plain} loop is
 * held up by the loop's thread, inferred from samples, running the loop's method; inside a {@code span} loop, by the
 * agent-shaped index_lookup span that covers it (recorded); inside an {@code agent} loop, by the agent-shaped
 * stallscope.SafepointSync's behind fields (recorded). A control run with short loops has none slow.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SafepointRecordingTest {
    private static final String LOOP_METHOD = SafepointProgram.class.getName() + ".spin";

    record Loop(String thread, String kind, long from, long to) {
    }

    static List<Loop> truth(Path jfr) throws Exception {
        List<Loop> loops = new ArrayList<>();
        for (String line : Files.readAllLines(Recorder.truthOf(jfr))) {
            String[] p = line.split("\t");
            loops.add(new Loop(p[0], p[1], Long.parseLong(p[2]), Long.parseLong(p[3])));
        }
        return loops;
    }

    /** The loop whose run holds the whole sync (the sync ends when the loop does: 5 ms of slack for the clocks), or null. */
    static Loop loopOf(SlowSafepoint s, List<Loop> loops) {
        for (Loop l : loops) {
            if (l.from() <= s.safepoint().syncStart() + 5_000_000L && l.to() >= s.safepoint().syncEnd() - 5_000_000L) return l;
        }
        return null;
    }

    @Test
    void eachSlowSyncInALoopNamesTheLoopsThreadWithTheBestEvidenceAndSaysWhere() throws Exception {
        Path jfr = Recorder.safepoints("spin");
        List<Loop> loops = truth(jfr);
        Analysis a = ContentionRecordingTest.analyze(jfr);
        List<SlowSafepoint> slow = a.safepoints().slow();
        assertThat(loops).hasSizeGreaterThanOrEqualTo(6);
        assertThat(slow).isNotEmpty();
        // Worst first.
        for (int i = 1; i < slow.size(); i++) {
            assertThat(slow.get(i).safepoint().syncNanos()).isLessThanOrEqualTo(slow.get(i - 1).safepoint().syncNanos());
        }
        int[] byKind = new int[3];
        for (SlowSafepoint s : slow) {
            Loop loop = loopOf(s, loops);
            if (loop == null) continue; // a sync the machine's load stretched, outside any loop: no truth to check against
            // The requester's thread dumps, and now and then a collection the JVM asked for in the meantime.
            assertThat(s.safepoint().operation()).isNotBlank();
            assertThat(s.safepoint().threads()).isPositive();
            assertThat(s.stop().source()).isEqualTo(SlowSafepoint.Source.RECORDED);
            assertThat(s.stop().basis()).isEqualTo("jdk.SafepointStateSynchronization");
            assertThat(s.holder()).as(s.sentence()).isNotNull();
            assertThat(s.holder().text()).as(s.sentence()).isEqualTo(loop.thread());
            switch (loop.kind()) {
                case "plain" -> {
                    byKind[0]++;
                    assertThat(s.holder().source()).as(s.sentence()).isEqualTo(SlowSafepoint.Source.INFERRED);
                    assertThat(s.doing().source()).isEqualTo(SlowSafepoint.Source.INFERRED);
                    assertThat(s.doing().text()).as(s.sentence()).isEqualTo("running " + LOOP_METHOD);
                    assertThat(s.holder().basis()).matches("\\d+ samples? in Java code during the sync, .*");
                }
                case "span" -> {
                    byKind[1]++;
                    assertThat(s.holder().source()).as(s.sentence()).isEqualTo(SlowSafepoint.Source.RECORDED);
                    assertThat(s.holder().basis()).as(s.sentence()).startsWith("agent's index_lookup span");
                    assertThat(s.doing().source()).isEqualTo(SlowSafepoint.Source.RECORDED);
                    assertThat(s.doing().text()).isEqualTo("in an index read (index_lookup) of " + SafepointProgram.INDEX);
                }
                default -> {
                    byKind[2]++;
                    assertThat(s.holder().source()).as(s.sentence()).isEqualTo(SlowSafepoint.Source.RECORDED);
                    assertThat(s.holder().basis()).isEqualTo("agent's stallscope.SafepointSync");
                    assertThat(s.doing().text()).isEqualTo("in an index read (index_lookup) of " + SafepointProgram.INDEX);
                }
            }
            assertThat(s.sentence()).startsWith(s.safepoint().threads() + " threads stopped ")
                    .contains(" at a safepoint (" + s.safepoint().operation() + ") held up by thread " + loop.thread() + " ");
        }
        // Every kind of loop held at least one safepoint up, and was named for it.
        assertThat(java.util.Arrays.stream(byKind).min().orElse(0)).as("fewest syncs checked of one kind (plain, span, agent): %s", java.util.Arrays.toString(byKind)).isPositive();
        // Most slow syncs are the loops' (load may stretch an odd other one past 50 ms).
        long inLoops = slow.stream().filter(s -> loopOf(s, loops) != null).count();
        assertThat(inLoops).as("slow syncs inside loops, of %d", slow.size()).isGreaterThanOrEqualTo((slow.size() + 1) / 2);
    }

    @Test
    void theTextAndJsonReportsListTheSlowSafepointsWithTheirSources() throws Exception {
        Path jfr = Recorder.safepoints("spin");
        Path json = jfr.resolveSibling(jfr.getFileName() + ".json");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(new String[] {"report", jfr.toString(), "--json", json.toString()},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
        // The text report folds long lines: compared with each run of spaces and line breaks as one space.
        String text = out.toString(StandardCharsets.UTF_8).replaceAll("\\s+", " ");
        JsonNode sp = new ObjectMapper().readTree(json.toFile()).get("safepoints");
        int count = sp.get("slowCount").asInt();
        assertThat(count).isPositive();
        assertThat(sp.get("slow")).hasSize(count);
        assertThat(text).containsPattern("Slow safepoints \\(time to safepoint 50\\.0 ms or more\\), worst first: " + count
                + " slow safepoints?, total stop [0-9.]+ m?s, longest [0-9.]+ m?s");
        assertThat(text).contains("held up by thread " + SafepointProgram.HOLDER);
        List<JsonNode> slow = StreamSupport.stream(sp.get("slow").spliterator(), false).toList();
        assertThat(slow).allSatisfy(s -> {
            assertThat(s.get("syncMs").asDouble()).isGreaterThanOrEqualTo(50.0);
            assertThat(s.get("operation").asText()).isNotBlank();
            assertThat(s.get("stop").get("source").asText()).isEqualTo("recorded");
            assertThat(s.get("summary").asText()).contains(" threads stopped ");
        });
        assertThat(slow).anySatisfy(s -> assertThat(s.get("holder").get("source").asText()).isEqualTo("inferred"));
        assertThat(slow).anySatisfy(s -> assertThat(s.get("holder").get("source").asText()).isEqualTo("recorded"));
        double longest = slow.stream().mapToDouble(s -> s.get("syncMs").asDouble()).max().orElseThrow();
        assertThat(sp.get("longestSyncMs").asDouble()).isEqualTo(longest);
        // --slow-safepoint raises the bar: none of these syncs lasted 10 s.
        ByteArrayOutputStream out2 = new ByteArrayOutputStream();
        assertThat(Main.run(new String[] {"report", jfr.toString(), "--slow-safepoint", "10s"},
                new PrintStream(out2, true, StandardCharsets.UTF_8), new PrintStream(new ByteArrayOutputStream(), true))).isZero();
        assertThat(out2.toString(StandardCharsets.UTF_8)).containsPattern("No slow safepoint \\(time to safepoint 10\\.0 s or more\\) among [0-9,]+ safepoints\\.");
    }

    @Test
    void windowByWindowTheSlowSafepointsAndTheirHoldersAreThoseOfTheWhole() throws Exception {
        Path jfr = Recorder.safepoints("spin");
        Analysis whole = ContentionRecordingTest.analyze(jfr);
        // Windows of one event: the samples are thinned to 500 once analysed; the holders' sample counts (in the
        // sentences) say they were read before that.
        Recording rec = new Recording();
        StreamingAnalysis stream = new StreamingAnalysis(rec, r -> Options.defaults(), 1, 500);
        JfrFileReader.read(jfr, rec, null, stream::chunkComing);
        Analysis windowed = stream.finish(Options.defaults());
        assertThat(windowed.sampling().sampled()).isTrue();
        assertThat(windowed.sampling().sampleStride()).isGreaterThan(1);
        assertThat(windowed.safepoints().slow().stream().map(SlowSafepoint::sentence).toList())
                .isEqualTo(whole.safepoints().slow().stream().map(SlowSafepoint::sentence).toList());
    }

    @Test
    void theHtmlTimelineBandsEachSlowSyncAndListsThem() throws Exception {
        Analysis a = ContentionRecordingTest.analyze(Recorder.safepoints("spin"));
        String html = HtmlReport.render(a);
        assertThat(html).contains("<h2>Slow safepoints</h2>").contains("<ol id=\"safepoints\">")
                .contains("show on the timeline");
        String json = html.replaceAll("(?s).*<script type=\"application/json\" id=\"stallscope-data\">(.*?)</script>.*", "$1");
        JsonNode bands = new ObjectMapper().readTree(json).get("safepoints");
        assertThat(bands).hasSize(a.safepoints().slow().size());
        int holder = a.recording().threads.stream().filter(t -> t.name().equals(SafepointProgram.HOLDER)).findFirst().orElseThrow().id();
        assertThat(StreamSupport.stream(bands.spliterator(), false)).allSatisfy(b -> {
            assertThat(b.get("e").asDouble()).isGreaterThan(b.get("s").asDouble());
            assertThat(b.get("h").asInt()).isIn(-1, holder);
        }).anySatisfy(b -> assertThat(b.get("h").asInt()).isEqualTo(holder));
    }

    @Test
    void aControlRunWithoutLongLoopsHasNoSlowSafepoint() throws Exception {
        Path jfr = Recorder.safepoints("control");
        Analysis a = ContentionRecordingTest.analyze(jfr);
        // The requester asked for one every 20 ms: they were recorded, and none was slow.
        assertThat(a.safepoints().recorded()).isGreaterThan(20);
        assertThat(a.safepoints().slow()).as("slow safepoints of the control: %s",
                a.safepoints().slow().stream().map(SlowSafepoint::sentence).toList()).isEmpty();
    }
}
