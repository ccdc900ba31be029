package io.stallscope.analyzer.render;

import io.stallscope.analyzer.analysis.Analysis;
import io.stallscope.analyzer.analysis.Analyzer;
import io.stallscope.analyzer.analysis.Options;
import io.stallscope.analyzer.analysis.stacks.IoOp;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.Samples;
import io.stallscope.analyzer.model.ThreadInfo;
import io.stallscope.analyzer.read.JfrFileReader;
import io.stallscope.analyzer.workload.Recorder;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The HTML report of a real recording: self-contained, every recorded string escaped (the program names a
 * thread {@code <script>alert(1)</script>}), and, opened in headless Chromium without network, it draws the
 * lanes and answers a click on a moment with every thread's stack.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HtmlReportTest {
    private static final String EVIL = "<script>alert(1)</script>";
    private Analysis analysis;
    private Path html;
    private String page;

    @BeforeAll
    void render() throws Exception {
        Path jfr = Recorder.asyncProfiler("monitor");
        Recording rec = new Recording();
        JfrFileReader.read(jfr, rec, null);
        analysis = Analyzer.analyze(rec, Options.defaults());
        html = Paths.get("target", "report-test.html").toAbsolutePath();
        page = HtmlReport.render(analysis);
        Files.writeString(html, page);
    }

    @Test
    void selfContainedAndEscaped() {
        assertThat(analysis.recording().threads).anyMatch(t -> t.name().equals(EVIL));
        assertThat(page).doesNotContain(EVIL).contains("\\u003cscript\\u003ealert(1)\\u003c/script\\u003e");
        // Nothing loaded from anywhere: no external scripts, styles, images or fonts.
        assertThat(page.toLowerCase(Locale.ROOT)).doesNotContain(" src=").doesNotContain("<link").doesNotContain("@import")
                .doesNotContain("url(");
        assertThat(page).contains("Content-Security-Policy");
        assertThat(HtmlReport.scriptSafe("{\"n\":\"</script><b>&\"}")).doesNotContain("<").doesNotContain(">").doesNotContain("&");
        assertThat(HtmlReport.esc(EVIL)).isEqualTo("&lt;script&gt;alert(1)&lt;/script&gt;");
    }

    @Test
    void chromiumDrawsLanesAndShowsStacksAtAClickedMoment() throws Exception {
        Path chromium = chromium();
        double t = momentInFileIo();
        String url = html.toUri() + "#t=" + String.format(Locale.ROOT, "%.2f", t);
        String dom = runChromium(chromium, "--dump-dom", url);
        assertThat(dom).contains("data-ready=\"true\"");
        assertThat(attr(dom, "data-lanes")).isGreaterThanOrEqualTo(8);
        assertThat(attr(dom, "data-waits-drawn")).isGreaterThan(10);
        assertThat(attr(dom, "data-stacks-shown")).isGreaterThanOrEqualTo(6);
        // Every lane label fits the name column as the browser measures it, and no two lanes share one.
        assertThat(attr(dom, "data-lane-names-clipped")).isZero();
        java.util.regex.Matcher lanes = java.util.regex.Pattern.compile("\"lane\":\"([^\"]*)\"").matcher(page);
        List<String> labels = new ArrayList<>();
        while (lanes.find()) labels.add(lanes.group(1));
        assertThat(labels).hasSizeGreaterThanOrEqualTo(8).doesNotHaveDuplicates().contains("kafka-network-thread-1-PLAINTEXT-PLAINTEXT-0");
        assertThat(dom).contains("id=\"moment\"").contains("Stacks at +");
        assertThat(dom).contains("data-thread=\"data-plane-kafka-request-handler-");
        assertThat(dom).containsAnyOf("<li>java.io.FileOutputStream.writeBytes</li>", "<li>java.io.FileDescriptor.sync</li>");
        assertThat(dom).contains("waiting for java.lang.Object@").contains("held by data-plane-kafka-request-handler-");
        // The markup-named thread is text in the DOM, never an element.
        assertThat(dom).contains("&lt;script&gt;alert(1)&lt;/script&gt;").doesNotContain(EVIL);

        Path shot = Paths.get("target", "report-screenshot.png").toAbsolutePath();
        Files.deleteIfExists(shot);
        runChromium(chromium, "--screenshot=" + shot, url);
        assertThat(shot).exists();
        assertThat(Files.size(shot)).isGreaterThan(20_000);
    }

    /**
     * Agent spans on their thread's lane (a real jfrsync recording of {@code AgentOpsProgram}, which emits events
     * shaped like the agent's): drawn, and a click inside the longest one names the op, its duration and
     * topic-partition on that thread.
     */
    @Test
    void chromiumShowsAgentOpsOnTheirLaneAndNamesThemAtAClickedMoment() throws Exception {
        Path chromium = chromium();
        Path jfr = Recorder.agentOps("jfrsync");
        Recording rec = new Recording();
        JfrFileReader.read(jfr, rec, null);
        Analysis a = Analyzer.analyze(rec, Options.defaults());
        io.stallscope.analyzer.model.Span longest = rec.spans.stream()
                .max(java.util.Comparator.comparingLong(io.stallscope.analyzer.model.Span::duration)).orElseThrow();
        Path opsHtml = Paths.get("target", "report-ops-test.html").toAbsolutePath();
        Files.writeString(opsHtml, HtmlReport.render(a));
        double mid = ((longest.start() + longest.end()) / 2 - rec.startNanos()) / 1e6;
        String dom = runChromium(chromium, "--dump-dom", opsHtml.toUri() + "#t=" + String.format(Locale.ROOT, "%.2f", mid));
        assertThat(dom).contains("data-ready=\"true\"");
        assertThat(attr(dom, "data-spans-drawn")).isGreaterThan(20);
        String thread = rec.threadName(longest.thread());
        int at = dom.indexOf("data-thread=\"" + thread + "\"");
        assertThat(at).as("the span's thread at the clicked moment").isPositive();
        assertThat(dom.substring(at, dom.indexOf("</div>", dom.indexOf("in agent op", at))))
                .contains("in agent op " + longest.opName() + " ")
                .contains(", " + longest.topicPartition()).contains("(" + longest.type() + ", from +");
    }

    /**
     * A slow safepoint stopped every thread of its JVM: the page bands its sync across the lanes, one band each
     * (the whole recording in view), on {@code SafepointProgram}'s recording, whose loops held thread dumps up.
     */
    @Test
    void chromiumBandsEachSlowSafepointAcrossTheLanes() throws Exception {
        Path chromium = chromium();
        Analysis a = Analyzer.analyze(readAll(Recorder.safepoints("spin")), Options.defaults());
        assertThat(a.safepoints().slow()).isNotEmpty();
        Path html = Paths.get("target", "report-safepoints-test.html").toAbsolutePath();
        Files.writeString(html, HtmlReport.render(a));
        String dom = runChromium(chromium, "--dump-dom", html.toUri().toString());
        assertThat(dom).contains("data-ready=\"true\"");
        assertThat(attr(dom, "data-safepoints-drawn")).isEqualTo(a.safepoints().slow().size());
    }

    private static Recording readAll(Path jfr) throws Exception {
        Recording rec = new Recording();
        JfrFileReader.read(jfr, rec, null);
        return rec;
    }

    /**
     * Each finding links to its moment; following the holder-in-file-I/O one (as a click does, through the URL's hash)
     * filters the lanes to its threads and shows their stacks then. The same page draws the flame views: the waiters'
     * stacks end in the contended method, the holders' in the write or fsync they sat in.
     */
    @Test
    void chromiumFollowsAFindingsLinkToItsMomentAndDrawsTheFlameViews() throws Exception {
        Path chromium = chromium();
        java.util.regex.Matcher items = java.util.regex.Pattern.compile("<li><span class=\"kind\">([^<]*)</span>.*?</li>").matcher(page);
        String href = null;
        int findings = 0;
        while (items.find()) {
            findings++;
            java.util.regex.Matcher link = java.util.regex.Pattern.compile("href=\"(#[^\"]*)\">show on the timeline").matcher(items.group());
            assertThat(link.find()).as("a link in finding " + items.group(1)).isTrue();
            if (items.group(1).equals("holder-blocked-in-file-io")) href = link.group(1).replace("&amp;", "&");
        }
        assertThat(findings).isGreaterThanOrEqualTo(3);
        assertThat(href).as("the holder-in-file-I/O finding's link").isNotNull();
        double t = Double.parseDouble(href.replaceAll(".*[#&]t=([0-9.]+).*", "$1"));

        String dom = runChromium(chromium, "--dump-dom", html.toUri() + href);
        assertThat(dom).contains("data-ready=\"true\"");
        assertThat(Double.parseDouble(dom.replaceAll("(?s).*data-selected=\"([0-9.]+)\".*", "$1"))).isEqualTo(t);
        int lanes = attr(dom, "data-lanes");
        assertThat(lanes).as("the lanes of the finding's threads only").isBetween(2, 8);
        assertThat(attr(dom, "data-stacks-shown")).isBetween(1, lanes);
        assertThat(dom).contains("Stacks at +").contains("data-thread=\"data-plane-kafka-request-handler-");

        String waiting = between(dom, "id=\"flame-waiting\"", "id=\"flame-holding\"");
        String holding = between(dom, "id=\"flame-holding\"", "</section>");
        assertThat(attr(waiting, "data-nodes")).isGreaterThan(3);
        assertThat(attr(holding, "data-nodes")).isGreaterThan(3);
        assertThat(waiting).contains(">io.stallscope.analyzer.workload.ContentionProgram.handle</div>");
        assertThat(holding).containsAnyOf(">java.io.FileDescriptor.sync</div>", ">java.io.FileOutputStream.writeBytes</div>");
        // Each box below the root is sized as its share of its parent.
        assertThat(holding).containsPattern("class=\"fbox\" style=\"width: [0-9.]+%;\"");
    }

    /** With no lock events and nothing found, the page says what each thread did instead, the busy thread first. */
    @Test
    void aWallRecordingWithoutLockEventsShowsWhatEachThreadDid() throws Exception {
        Recording rec = new Recording();
        JfrFileReader.read(Recorder.wallOnly(), rec, null);
        String wall = HtmlReport.render(Analyzer.analyze(rec, Options.defaults()));
        assertThat(wall).contains("<li>No lock contention or storage stall found.</li>").contains("<table id=\"states\">");
        String table = between(wall, "<table id=\"states\">", "</table>");
        int busy = table.indexOf("<tr data-thread=\"states-busy\">");
        assertThat(busy).isPositive().isLessThan(table.indexOf("<tr data-thread=\"states-sleeping\">"))
                .isLessThan(table.indexOf("<tr data-thread=\"states-parked\">"));
        String row = table.substring(busy, table.indexOf("</tr>", busy));
        // thread, samples, then the states in State order: runnable first
        assertThat(row).matches(".*<td>\\d+</td><td>(100%|>99%|9\\d%|8\\d%)</td>.*");
        // and the flame views have nothing to draw (the page then says so)
        assertThat(wall).contains("\"waiting\":{\"n\":\"all\",\"ms\":0.0,\"c\":[]}");
    }

    private static String between(String s, String from, String to) {
        int i = s.indexOf(from);
        assertThat(i).as(from).isNotNegative();
        int j = s.indexOf(to, i + from.length());
        return s.substring(i, j < 0 ? s.length() : j);
    }

    /** A moment when some handler was sampled inside a storage syscall. */
    private double momentInFileIo() {
        Recording rec = analysis.recording();
        for (ThreadInfo th : rec.threads) {
            if (!th.name().startsWith("data-plane-kafka-request-handler-")) continue;
            Samples.Lane lane = rec.samples.lane(th.id());
            for (int i = lane.size() / 3; i < lane.size(); i++) {
                IoOp op = analysis.classifier().io(lane.stack(i));
                if (op == IoOp.WRITE || op == IoOp.FSYNC) return (lane.time(i) - rec.startNanos()) / 1e6;
            }
        }
        throw new AssertionError("no handler sample in write or fsync");
    }

    private static int attr(String dom, String name) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(name + "=\"(\\d+)\"").matcher(dom);
        assertThat(m.find()).as(name).isTrue();
        return Integer.parseInt(m.group(1));
    }

    /** /usr/bin/chromium (or -Dstallscope.chromium); required when CI=true, else the test is skipped. */
    static Path chromium() {
        Path p = Paths.get(System.getProperty("stallscope.chromium", "/usr/bin/chromium"));
        if (Files.isExecutable(p)) return p;
        String reason = "headless Chromium not found at " + p + " (Debian: apt-get install chromium)";
        if ("true".equalsIgnoreCase(System.getenv("CI"))) fail(reason + "; it is required when CI=true");
        System.out.println("SKIPPED browser test: " + reason);
        Assumptions.abort(reason);
        return p;
    }

    static String runChromium(Path chromium, String mode, String url) throws IOException, InterruptedException {
        Path profile = Files.createTempDirectory("stallscope-chromium-");
        List<String> cmd = new ArrayList<>(List.of(chromium.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-extensions", "--host-resolver-rules=MAP * ~NOTFOUND",
                "--user-data-dir=" + profile, "--window-size=1400,1000", mode, url));
        Path out = Files.createTempFile("stallscope-chromium-", ".out");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                fail("chromium did not finish in 120 s");
            }
            return Files.readString(out, StandardCharsets.UTF_8);
        } finally {
            Files.deleteIfExists(out);
            try (var walk = Files.walk(profile)) {
                walk.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }
}
