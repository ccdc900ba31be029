package io.stallscope.it.realdisk;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import com.fasterxml.jackson.databind.JsonNode;
import io.stallscope.it.broker.HarnessDirs;
import io.stallscope.it.examples.AnalyzerCli;
import io.stallscope.it.examples.Chromium;

import java.nio.file.Files;
import java.util.Locale;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * LINE's write-behind-sendfile stall on real disks (root; {@link LineScenario}): Kafka 3.9.2, its log dir on a
 * loop-device file system with cold reads throttled to 8 MiB/s by the cgroup I/O controller, a 128 MiB
 * backlog evicted from the page cache in the active segment, a producer at 500 records/s, then a consumer
 * from offset 0. On XFS the request handlers' write(2) to the segment blocks behind the network thread's
 * cold sendfile; on ext4, the control, it does not. Three network threads, so that the producer's requests
 * do not also queue behind the consumer's sendfile on a shared network thread (KAFKA-7504, which rises on
 * both file systems): then the producer's latency rises on XFS alone (docs/lab/real-disk-line.md: 16.9x and
 * 53 blocked writes on XFS, 1.1x and none on ext4, medians of 3 rounds).
 */
class WriteBehindSendfileIT {
    private static final Path DIR = Path.of(System.getProperty("stallscope.it.target", "target"), "line").toAbsolutePath();
    private static final int NETWORK_THREADS = 3;
    private static final String AGENT_OPTIONS = SendfilePairing.AGENT_OPTIONS;

    @BeforeEach
    void requireRealDisk() {
        RealDiskRequirement.assumeAvailable();
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void onXfsTheHandlersWriteWaitsForTheColdSendfile() throws Exception {
        LineScenario.Result r = LineScenario.run(LineScenario.Options.defaults(FsType.XFS).withNetworkThreads(NETWORK_THREADS)
            .withAgentOptions(AGENT_OPTIONS).withCapture(), DIR.resolve("xfs"));
        assertHandlersBlocked(r);
        assertSlowAppendsNameTheSendfile(r);
        assertThat(r.ratio()).as("producer p99.9 during / before the catch-up; " + r.summary()).isGreaterThanOrEqualTo(5);
        JsonNode report = SendfilePairing.analyzerReport(r);
        SendfilePairing.assertFirstFindingIsTheSendfileStall(r, report);
        JsonNode finding = SendfilePairing.sendfileFindings(r, report).stream().findFirst()
            .orElseThrow(() -> new AssertionError("no write-behind-sendfile finding in the analyzer's report of " + r.capture()));
        assertThat(finding.path("fileSystem").asText()).isEqualTo("xfs");
        assertThat(finding.path("path").asText()).contains("/" + LineScenario.TOPIC + "-0/").endsWith(".log");
        assertThat(finding.toString()).contains("request-handler").contains("network-thread");
        timelineScreenshot(r);
    }

    /**
     * The agent's live pairing: at least 90% of the handlers' slow records_append lines during the catch-up name a
     * network thread's transfer_to of the same file, on xfs (issue 41). The rest may have waited behind something
     * else, or nothing. (First run, 2026-11-27: 27 of 27 in the catch-up; the 9 lines while the backlog was written,
     * with no reader, named no sendfile.)
     */
    static void assertSlowAppendsNameTheSendfile(LineScenario.Result r) {
        List<String> lines = r.slowAppendLines();
        long named = SendfilePairing.namingTheSendfile(lines);
        System.out.println("xfs: " + named + " of " + lines.size() + " slow records_append line(s) on request handlers"
            + " name a network thread's transfer_to of the same file");
        lines.stream().limit(5).forEach(System.out::println);
        assertThat(lines).as("slow records_append lines on request handlers").isNotEmpty();
        assertThat(named * 10).as(named + " of " + lines.size() + " lines name the sendfile").isGreaterThanOrEqualTo(lines.size() * 9L);
    }

    /** The kernel's stall, witnessed by the JDK's own file events: 10 or more handler writes blocked, one of 100 ms or more. */
    static void assertHandlersBlocked(LineScenario.Result r) {
        System.out.println(r.summary());
        assertThat(r.residentAtStart()).as("backlog cold at the start").isLessThan(0.05);
        assertThat(r.slowWritesDuring()).as("request handlers' write(2) of 20 ms or more during the catch-up (jdk.FileWrite); "
            + r.summary()).hasSizeGreaterThanOrEqualTo(10);
        assertThat(SlowFileWrites.maxMs(r.slowWritesDuring())).as("the longest, ms").isGreaterThanOrEqualTo(100);
    }

    /**
     * The HTML timeline of the XFS capture at the longest append on a request handler, in headless Chromium:
     * target/docs-images/timeline-write-behind-sendfile.png (docs/seed-problems.md shows a copy).
     */
    private static void timelineScreenshot(LineScenario.Result r) throws Exception {
        Path html = r.dir().resolve("timeline.html");
        AnalyzerCli.report(List.of(r.capture().toString(), "--html", html.toString()), r.dir().resolve("report-html.txt"));
        JsonNode longest = null;
        for (JsonNode s : AnalyzerCli.json(r.dir().resolve("report.json")).path("spans")) {
            if (s.path("op").asText().equals("records_append") && s.path("threadRole").asText().equals("request_handler")
                && (longest == null || s.path("durationMs").asDouble() > longest.path("durationMs").asDouble())) {
                longest = s;
            }
        }
        assertThat(longest).as("a records_append span on a request handler in the capture").isNotNull();
        double mid = longest.path("startMs").asDouble() + longest.path("durationMs").asDouble() / 2;
        String url = html.toUri() + "#filter=" + "request-handler|network-thread".replace("|", "%7C")
            + "&t=" + String.format(Locale.ROOT, "%.1f", mid);
        Path png = HarnessDirs.target().resolve("docs-images").resolve("timeline-write-behind-sendfile.png");
        Files.createDirectories(png.getParent());
        Chromium.require().screenshot(url, png, 1400, 1100);
        assertThat(Files.size(png)).as(png + " is a real picture").isGreaterThan(20_000);
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void onExt4TheyDoNot() throws Exception {
        LineScenario.Result r = LineScenario.run(LineScenario.Options.defaults(FsType.EXT4).withNetworkThreads(NETWORK_THREADS)
            .withAgentOptions(AGENT_OPTIONS).withCapture(), DIR.resolve("ext4"));
        System.out.println(r.summary());
        assertThat(r.residentAtStart()).as("backlog cold at the start").isLessThan(0.05);
        // A stray write of 25-48 ms was seen on ext4 on this 2-core machine (scheduling, the journal), against
        // 53 of up to 315 ms on XFS: the control allows a stray one or two, not the stall.
        assertThat(r.slowWritesDuring()).as("request handlers' write(2) of 20 ms or more during the catch-up (jdk.FileWrite); "
            + r.summary()).hasSizeLessThanOrEqualTo(2);
        assertThat(SlowFileWrites.maxMs(r.slowWritesDuring())).as("the longest, ms").isLessThan(100);
        // The producer's p99.9 during / before is in the summary, not judged: measured 1.0-1.3x (XFS 16-21x), but
        // 5.3x once on a quiet CI run (2026-11-29) with no handler write over 20 ms. With three network threads the
        // producer's connection still shares one with the catch-up's sendfile by chance (KAFKA-7504, on any file
        // system), so the ratio is not ext4's answer; the handlers' own writes, above, are.
        assertThat(SendfilePairing.analyzerFindings(r)).as("write-behind-sendfile findings on ext4").isEmpty();
        System.out.println("ext4: " + r.slowAppendLines().size() + " slow records_append line(s) on request handlers");
        r.slowAppendLines().forEach(System.out::println);
        assertThat(r.slowAppendLines()).as("slow appends said to wait behind a sendfile on ext4")
            .noneMatch(l -> l.contains(": behind transfer_to"));
    }
}
