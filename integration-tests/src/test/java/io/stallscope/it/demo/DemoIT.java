package io.stallscope.it.demo;

import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.FreePorts;
import io.stallscope.it.broker.HarnessDirs;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.LocalKafkaBroker;
import org.apache.kafka.clients.admin.Admin;
import io.stallscope.it.realdisk.RealDisk;
import io.stallscope.it.realdisk.RealDiskLeftovers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * scripts/demo's story in its short mode, end to end on real Kafka 3.6.2 brokers with the agent, on the real
 * slow disk when the test runs as root (XFS on a loop device: writes at 20 IOPS, cold reads at 25 MiB/s) and
 * on the simulated one (the LD_PRELOAD shim: fsyncs of the orders partition +100 ms, cold reads of the backlog
 * +5 ms and +40 ms per MiB). Asserts on what it prints and writes, and that it leaves no
 * process behind, also when interrupted.
 */
class DemoIT {
    /** A row of the live table: op, role, count, p50, p99, max (the max may be a bound). */
    private static final Pattern ROW = Pattern.compile(
        "^(\\w+) +(\\w+) +(\\d+) +(\\d[\\d.]*(?:us|ms|s)) +(\\d[\\d.]*(?:us|ms|s)) +(?:<=)?(\\d[\\d.]*(?:us|ms|s))(?:  << slow)?$");
    /** A row of the before/after table with the producer's four latencies as numbers. */
    private static final Pattern BEFORE_AFTER = Pattern.compile(
        "^\\| (mitigations o(?:ff|n)|your broker) +\\|(?: +[\\d.]+ ms \\|){4} +(?:[\\d.]+(?:us|ms|s)|none) \\| +(?:\\d+, (?:<=)?[\\d.]+(?:us|ms|s)|none) \\|$");

    /**
     * CI runs {@code auto} only (the real disk as root, the simulated one otherwise); scripts/beyond-ci
     * ({@code -Dstallscope.beyond.ci=true}) adds {@code simulated} on a root machine: a minute of CI's 40.
     */
    static Stream<String> disks() {
        return Boolean.getBoolean("stallscope.beyond.ci") ? Stream.of("auto", "simulated") : Stream.of("auto");
    }

    /**
     * {@code auto}: the demo's default, a real disk as root (XFS on a loop device, throttled by the kernel;
     * CI runs as root), else the simulated one; {@code simulated}: the shim, what a machine without root runs.
     */
    @ParameterizedTest
    @MethodSource("disks")
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void showsTheStallTheCaptureAndTheMitigationsThenLeavesNothingRunning(String disk) throws Exception {
        Path out = HarnessDirs.target().resolve("demo-it").resolve("full-" + disk + "-" + System.currentTimeMillis());
        boolean real = disk.equals("auto") && RealDisk.unavailableReason().isEmpty();
        String output;
        try (DemoProcess demo = new DemoProcess(out, "--short", "--ansi", "never", "--disk", disk)) {
            int exit = demo.waitFor(Duration.ofMinutes(3));
            output = demo.output();
            assertThat(exit).as(output).isZero();
            assertThat(demo.leftovers()).as("processes of the demo after it ended").isEmpty();
        }
        if (real) {
            assertThat(output).as("the real disk is said to be one").contains("real slow disk (root): XFS on a loop device")
                .containsPattern("the disk during this run: real xfs on /dev/loop\\d+ .*the broker read \\d+ MiB");
        } else {
            assertThat(output).as("the simulated disk is said to be one").contains("simulated slow disk (LD_PRELOAD shim, not a real disk)");
        }
        // the live table: rows with real numbers, the stall's ops among them
        List<String> rows = output.lines().filter(l -> ROW.matcher(l).matches()).toList();
        assertThat(rows).as(output).anyMatch(l -> l.startsWith("snapshot_write    request_handler"))
            .anyMatch(l -> l.startsWith("transfer_to       network"))
            .anyMatch(l -> l.startsWith("records_append    request_handler"));
        assertThat(rows.stream().map(ROW::matcher).filter(Matcher::matches).mapToLong(m -> Long.parseLong(m.group(3))).max()
            .orElse(0)).as("the most counted row").isGreaterThan(100);
        // the snapshot fsync (100 ms simulated, or its own writes at 20 IOPS on the real disk) on a request handler
        // is marked slow (50 ms) when the mitigations are off
        assertThat(output).containsPattern("(?m)^snapshot_write +request_handler +\\d+ .*  << slow$");

        // the capture and the analyzer, or the honest note that this agent has no capture yet
        Path captures = out.resolve("mitigations-off/captures");
        if (output.contains("capture not available in this agent build")) {
            assertThat(output).contains("nothing to analyze");
            assertThat(CaptureSupport.files(captures)).isEmpty();
        } else {
            assertThat(CaptureSupport.files(captures)).as(output).isNotEmpty();
            assertThat(output).contains("$ analyzer report stallscope-");
            // the capture was triggered by an op of 80 ms or more: the analyzer finds at least that
            assertThat(output).containsPattern("(?m)^ +1\\. \\[[a-z-]+] ");
            assertThat(out.resolve("analysis/report.txt")).isRegularFile();
            // one report over every capture of the stall run, each read once (the writer leaves no repeated chunk)
            String report = Files.readString(out.resolve("analysis/report.txt"));
            for (Path c : CaptureSupport.files(captures)) {
                assertThat(report).as(report).contains(c.getFileName().toString());
            }
            assertThat(report).doesNotContain("repeats an earlier chunk");
            assertThat(out.resolve("analysis/timeline.html")).isRegularFile();
            assertThat(output).contains("the HTML timeline: " + out.resolve("analysis/timeline.html"));
        }

        // the before/after table, printed and written
        List<String> table = output.lines().filter(l -> BEFORE_AFTER.matcher(l).matches()).toList();
        table = table.stream().filter(l -> !l.startsWith("| your broker")).toList();
        assertThat(table).as(output).hasSize(2);
        assertThat(table.get(0)).startsWith("| mitigations off");
        assertThat(table.get(1)).startsWith("| mitigations on");
        assertThat(Files.readString(out.resolve("before-after.md"))).contains(table.get(0)).contains(table.get(1));
        assertThat(output).containsPattern("roll-flush deferred=[1-9]");
        assertThat(output).containsPattern("prefetch warmed [1-9]");

        // and where everything is
        assertThat(output).contains("all of it under " + out);
        assertThat(out.resolve("mitigations-off/broker/broker.log")).isRegularFile();
        if (real) {
            assertThat(RealDiskLeftovers.under(out)).as("loop devices or mounts of the demo left").isEmpty();
        } else {
            assertThat(out.resolve("mitigations-on/slowdisk.log")).isRegularFile();
        }
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void drivesLoadAtYourOwnBrokerAndLeavesItAsItWas() throws Exception {
        Path out = HarnessDirs.target().resolve("demo-it").resolve("own-broker-" + System.currentTimeMillis());
        int port = FreePorts.next();
        Path agent = Path.of(System.getProperty("stallscope.agent.jar", "../agent/target/stallscope-agent.jar"));
        BrokerSpec spec = BrokerSpec.builder("3.9.2").name("demo-own")
            .javaAgent(agent, "prometheus=127.0.0.1:" + port).build();
        try (LocalKafkaBroker broker = new LocalKafkaBroker(spec)) {
            broker.start();
            String output;
            try (DemoProcess demo = new DemoProcess(out, "--short", "--ansi", "never", "--bootstrap", broker.bootstrapServers(),
                "--prometheus", "http://127.0.0.1:" + port + "/metrics", "--pid", Long.toString(broker.pid()))) {
                int exit = demo.waitFor(Duration.ofMinutes(3));
                output = demo.output();
                assertThat(exit).as(output).isZero();
            }
            // the live table and the results, from the agent on that broker
            assertThat(output).as(output).containsPattern("(?m)^records_append +request_handler +\\d+ ")
                .containsPattern("(?m)^\\| your broker +\\|(?: +[\\d.]+ ms \\|){4}");
            // an on-demand capture of it, analyzed
            assertThat(out.resolve("capture.jfr")).isRegularFile();
            assertThat(out.resolve("analysis/report.txt")).isRegularFile();
            // and nothing done to it: no simulated disk, no eviction; its own topics gone; still running
            assertThat(output).doesNotContain("simulated slow disk").doesNotContain("evicted")
                .contains("deleted topics stallscope-demo-orders and stallscope-demo-backlog");
            assertThat(broker.isRunning()).isTrue();
            assertThat(broker.commandLine()).noneMatch(a -> a.contains("slowdisk"));
            try (Admin admin = KafkaClients.admin(broker)) {
                assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).noneMatch(t -> t.startsWith("stallscope-demo-"));
            }
        }
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void ctrlCStopsTheBrokerAndSaysWhereTheFilesAre() throws Exception {
        Path out = HarnessDirs.target().resolve("demo-it").resolve("interrupted-" + System.currentTimeMillis());
        try (DemoProcess demo = new DemoProcess(out, "--short", "--ansi", "never")) {
            assertThat(demo.awaitLine("phase 1, steady load", Duration.ofMinutes(2))).as(demo.output()).isTrue();
            assertThat(demo.leftovers()).as("the broker runs").anyMatch(p -> p.contains("kafka.Kafka"));

            demo.signal("INT");
            demo.waitFor(Duration.ofMinutes(1));

            assertThat(demo.output()).contains("demo: interrupted: stopping what it started")
                .contains("demo: stopped; what it wrote so far is under " + out);
            assertThat(demo.leftovers()).as("processes of the demo after Ctrl-C").isEmpty();
            assertThat(RealDiskLeftovers.under(out)).as("loop devices or mounts of the demo left after Ctrl-C").isEmpty();
        }
    }
}
