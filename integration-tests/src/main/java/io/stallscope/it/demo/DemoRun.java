package io.stallscope.it.demo;

import io.stallscope.it.broker.KafkaVersion;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The demo's story. Locally: the stall with the mitigations off (live table, capture, analyzer report),
 * the same load on a fresh broker with them on, then the two side by side, and where everything is.
 * Against an operator's broker: the load and the live table only.
 */
final class DemoRun {
    static final String MITIGATIONS = "roll-flush,prefetch";
    /** Ops at least this long are marked in the live table (and logged by the agent as slow). */
    static final Duration SLOW = Duration.ofMillis(50);

    private final DemoPlan plan;
    private final Path dir;
    private final LiveView view;
    private final Path agentJar;
    private final AnalyzerStep analyzer;
    private final DemoDiskKind.Choice disk;
    private final DemoTopics topics = new DemoTopics("");
    private final List<String> written = new ArrayList<>();
    private volatile DemoTarget current;
    private volatile boolean done;

    DemoRun(DemoPlan plan, Path dir, LiveView view, Path agentJar, AnalyzerStep analyzer, DemoDiskKind.Choice disk) {
        this.disk = disk;
        this.plan = plan;
        this.dir = dir;
        this.view = view;
        this.agentJar = agentJar;
        this.analyzer = analyzer;
    }

    int local(KafkaVersion version) throws Exception {
        long t0 = System.nanoTime();
        cleanUpOnExit(null);
        say("demo: everything goes to " + dir);
        if (!disk.note().isEmpty()) {
            say("demo: " + disk.note());
        }
        say("demo: " + disk.kind().describe(topics));
        CaptureSupport capture = CaptureSupport.probe(javaBin(), agentJar);
        say("demo: capture: " + (capture.available()
            ? "the agent captures a recording when an op takes " + CaptureSupport.TRIGGER.toMillis() + " ms or more (profile=on)"
            : capture.reason()));
        StallScenario scenario = new StallScenario(plan, topics, view, SLOW);

        say("");
        say("=== 1. The stall: Kafka " + version + " with the agent, mitigations off ===");
        Path offDir = dir.resolve("mitigations-off");
        Path offCaptures = offDir.resolve("captures");
        StallScenario.Result off;
        List<Path> captures;
        try (LocalTarget broker = start(version, capture.available() ? CaptureSupport.agentOptions(offCaptures) : "", offDir)) {
            off = scenario.run(broker, "mitigations off", offDir.resolve("steady-producer.csv"), null);
            captures = capture.available()
                ? CaptureSupport.awaitAnnounced(offCaptures, broker.broker().logFile(), Duration.ofSeconds(15)) : List.of();
            say("demo: the disk during this run: " + broker.disk().summary());
            reportCaptures(capture, captures, broker.broker().logFile());
        }

        say("");
        say("=== 2. What the capture shows: analyzer report ===");
        analyze(capture, captures);

        say("");
        say("=== 3. The same load with the mitigations on: mitigate=" + MITIGATIONS + " ===");
        Path onDir = dir.resolve("mitigations-on");
        Path onCaptures = onDir.resolve("captures");
        StallScenario.Result on;
        try (LocalTarget broker = start(version, "mitigate=" + MITIGATIONS
            + (capture.available() ? "," + CaptureSupport.agentOptions(onCaptures) : ""), onDir)) {
            on = scenario.run(broker, "mitigations on", onDir.resolve("steady-producer.csv"), null);
            say("demo: the disk during this run: " + broker.disk().summary());
            say("demo: what the mitigations did (agent counters): " + on.mitigations());
        }

        say("");
        say("=== 4. Before and after (the stall phase of each run, " + plan.stall().toSeconds() + " s) ===");
        String table = BeforeAfterTable.format(List.of(off, on));
        say(table);
        say(legend(version));
        Path tableFile = dir.resolve("before-after.md");
        Files.writeString(tableFile, "Kafka " + version + ", " + plan + "\n\n" + table + "\n" + legend(version) + "\n");
        written.add("before/after table: " + tableFile);
        for (StallScenario.Result r : List.of(off, on)) {
            if (!r.caughtUp()) {
                say(String.format(Locale.ROOT, "demo: note: in '%s' the late consumer read %.0f of %d MiB before the phase ended",
                    r.label(), r.catchUpMib(), plan.backlogMib()));
            }
        }
        done = true;
        say("");
        say(String.format(Locale.ROOT, "demo: done in %.0f s. Everything it wrote:", (System.nanoTime() - t0) / 1e9));
        written.forEach(w -> say("  " + w));
        say("  all of it under " + dir);
        return 0;
    }

    int remote(String bootstrap, URI prometheus, Long pid) throws Exception {
        DemoTopics own = new DemoTopics("stallscope-demo-");
        RemoteTarget target = new RemoteTarget(bootstrap, prometheus);
        cleanUpOnExit(() -> own.delete(bootstrap));
        say("demo: your broker " + bootstrap + ", agent endpoint " + prometheus + "; everything else goes to " + dir);
        String scrape = target.metrics().scrape(); // fails here, in one line, if the endpoint is wrong
        if (!scrape.contains("stallscope_op_seconds")) {
            throw new IllegalStateException(prometheus + " answers, but without stallscope_op_seconds: is the agent on that broker?");
        }
        say("demo: creating topics " + own.orders + " (1 MiB segments) and " + own.backlog + "; they are deleted at the end");
        own.create(bootstrap);
        Path capture = dir.resolve("capture.jfr");
        try {
            StallScenario scenario = new StallScenario(plan, own, view, SLOW);
            Process[] capturing = new Process[1];
            Runnable atStall = pid == null ? null : () -> capturing[0] = startCapture(pid, capture);
            StallScenario.Result result = scenario.run(target, "your broker", dir.resolve("steady-producer.csv"), atStall);
            written.add("the steady producer's latency per record: " + dir.resolve("steady-producer.csv"));
            say("");
            say("=== Your broker under the demo's load (the stall phase, " + plan.stall().toSeconds() + " s) ===");
            say(BeforeAfterTable.format(List.of(result)));
            say("demo: mitigations on your broker (agent counters): " + result.mitigations());
            if (capturing[0] != null) {
                finishCapture(capturing[0], capture);
            } else {
                say("demo: captures: your agent writes them where its profile.dir says (with profile=on); the broker log"
                    + " announces each in a line ending (stallscope). Give --pid for an on-demand capture.");
            }
        } finally {
            own.delete(bootstrap);
            say("demo: deleted topics " + own.orders + " and " + own.backlog);
        }
        done = true;
        say("demo: done. Everything it wrote:");
        written.forEach(w -> say("  " + w));
        say("  all of it under " + dir);
        return 0;
    }

    /** The run ended (done or failed) by itself: its own try blocks stopped what it started. */
    void finished() {
        done = true;
    }

    private LocalTarget start(KafkaVersion version, String agentExtra, Path runDir) {
        LocalTarget broker = new LocalTarget(version, agentJar, agentExtra, topics, disk.kind(), runDir);
        current = broker;
        say("demo: starting Kafka " + version + " on 127.0.0.1 with the agent (" + broker.agentOptions() + ") ...");
        broker.start();
        say(String.format(Locale.ROOT, "demo: broker %s up in %.1f s; the live table comes from the agent's %s", broker.bootstrap(),
            broker.broker().lastStartDuration().toMillis() / 1000.0, broker.metrics().uri()));
        broker.agentLines().forEach(l -> say("demo: the agent says: " + l));
        topics.create(broker.bootstrap());
        written.add("broker (log " + broker.broker().logFile().getFileName() + ", data, the agent's lines): "
            + broker.broker().workDir());
        if (broker.disk().record() != null) {
            written.add(broker.disk().record());
        }
        return broker;
    }

    private void reportCaptures(CaptureSupport capture, List<Path> captures, Path brokerLog) {
        if (!capture.available()) {
            say("demo: capture: skipped, " + capture.reason());
            return;
        }
        if (captures.isEmpty()) {
            say("demo: capture: no capture was announced within 15 s of the stall phase's end (broker log: " + brokerLog + ")");
            return;
        }
        CaptureSupport.announcements(brokerLog).forEach(l -> say("demo: the broker log says: " + shorten(l, 300)));
        captures.forEach(c -> {
            say("demo: capture: " + c + " (" + size(c) + ")");
            written.add("capture: " + c);
        });
    }

    /**
     * One report over every capture of the stall run: the analyzer reads several files as one, and the stall that
     * hurt the producer need not be in the first capture (the run that found this showed a background flush's
     * capture and never the snapshot_write one).
     */
    private void analyze(CaptureSupport capture, List<Path> captures) throws IOException, InterruptedException {
        if (captures.isEmpty()) {
            say("demo: nothing to analyze: " + (capture.available() ? "no capture was written" : capture.reason()));
            say("demo: (on a capture the step is: " + analyzer.launcher() + " report CAPTURE.jfr --html timeline.html)");
            return;
        }
        say("demo: every capture of the stall run, in one report (" + captures.size() + " files)");
        say("demo: $ analyzer report " + captures.stream().map(c -> c.getFileName().toString()).collect(Collectors.joining(" "))
            + " --html " + dir.resolve("analysis/timeline.html"));
        AnalyzerStep.Report report = analyzer.run(captures, dir.resolve("analysis"));
        AnalyzerStep.headlines(report.text(), 150).forEach(l -> say("  " + l));
        say("demo: the whole report: " + report.textFile());
        if (report.exitCode() != 0) {
            say("demo: the analyzer exited with " + report.exitCode() + " (its output above)");
        }
        written.add("analyzer report: " + report.textFile());
        if (Files.isRegularFile(report.html())) {
            say("demo: the HTML timeline: " + report.html());
            written.add("HTML timeline: " + report.html());
        }
    }

    /** {@code java -jar stallscope-agent.jar capture PID --duration D --out FILE}, for the stall phase and 5 s more. */
    private Process startCapture(long pid, Path file) {
        Duration length = plan.stall().plusSeconds(5);
        say("demo: $ java -jar " + agentJar.getFileName() + " capture " + pid + " --duration " + length.toSeconds() + "s --out " + file);
        try {
            Process p = new ProcessBuilder(javaBin().toString(), "-jar", agentJar.toString(), "capture", Long.toString(pid),
                "--duration", length.toSeconds() + "s", "--out", file.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("capture.out").toFile()).start();
            OwnProcesses.register(p);
            return p;
        } catch (IOException e) {
            say("demo: cannot start the on-demand capture: " + e.getMessage());
            return null;
        }
    }

    private void finishCapture(Process p, Path file) throws IOException, InterruptedException {
        if (!p.waitFor(plan.stall().toSeconds() + 60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
        }
        OwnProcesses.unregister(p);
        String output = Files.readString(dir.resolve("capture.out"), StandardCharsets.UTF_8).trim();
        if (!Files.isRegularFile(file)) {
            say("demo: on-demand capture failed: " + shorten(output, 300));
            return;
        }
        say("demo: capture: " + file + " (" + size(file) + ")");
        written.add("capture: " + file);
        AnalyzerStep.Report report = analyzer.run(List.of(file), dir.resolve("analysis"));
        AnalyzerStep.headlines(report.text(), 150).forEach(l -> say("  " + l));
        say("demo: the whole report: " + report.textFile() + "; the HTML timeline: " + report.html());
        written.add("analyzer report: " + report.textFile());
        if (Files.isRegularFile(report.html())) {
            written.add("HTML timeline: " + report.html());
        }
    }

    private String legend(KafkaVersion version) {
        String snapshot = version.isAtLeast(3, 7, 0)
            ? "on Kafka 3.7+ the snapshot fsync left the roll (KAFKA-9693 fixed), so roll-flush is not needed there"
            : "before Kafka 3.7 it includes the fsync, made under the partition lock while producers wait (KAFKA-9693)";
        return String.join("\n",
            "produce: the steady producer's acknowledgement latency (" + plan.steadyRate() + " records/s, acks=all), measured by the client",
            "net sendfile p99: the agent's transfer_to on network threads; a network thread reading cold data stalls every response"
                + " queued behind it (KAFKA-7504); prefetch warms the pages on a request handler first",
            "handler snapshot: the agent's snapshot_write/snapshot_flush on request handlers; " + snapshot,
            "bucket bounds (<=) are the agent's histogram buckets; the disk is described above; one run each on a"
                + " shared machine, so expect noise");
    }

    /** Stops the broker and the demo's other processes on Ctrl-C, and says where the files are. */
    private void cleanUpOnExit(Runnable alsoOnInterrupt) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (done) {
                return;
            }
            System.out.println();
            System.out.println("demo: interrupted: stopping what it started ...");
            OwnProcesses.endAll();
            DemoTarget t = current;
            if (t != null) {
                t.close();
            }
            if (alsoOnInterrupt != null) {
                try {
                    alsoOnInterrupt.run();
                } catch (RuntimeException e) {
                    System.out.println("demo: " + e.getMessage());
                }
            }
            System.out.println("demo: stopped; what it wrote so far is under " + dir);
        }, "demo-cleanup"));
    }

    private void say(String line) {
        view.note(line);
    }

    private static Path javaBin() {
        return Path.of(System.getProperty("java.home"), "bin", "java");
    }

    private static String size(Path f) {
        try {
            return String.format(Locale.ROOT, "%.1f MiB", Files.size(f) / (double) (1 << 20));
        } catch (IOException e) {
            return "?";
        }
    }

    private static String shorten(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max) + " ...";
    }
}
