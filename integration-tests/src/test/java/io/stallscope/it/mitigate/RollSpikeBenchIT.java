package io.stallscope.it.mitigate;

import io.stallscope.it.bench.LoadAverage;
import io.stallscope.it.broker.PrometheusScrape;
import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.LocalKafkaBroker;
import io.stallscope.it.realdisk.FsType;
import io.stallscope.it.realdisk.IoLimits;
import io.stallscope.it.slowdisk.ShimCall;
import io.stallscope.it.slowdisk.SlowDisk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * Experiment, not a CI test (runs only with -Dstallscope.bench=true; see docs/lab/mitigations.md): the
 * produce latency spike of segment rolls, with and without roll-flush. Simulated: a slow disk, every
 * fsync of a file in the topic's partition directory delayed 50 ms (the LD_PRELOAD shim). 1 MiB
 * segments, a steady idempotent producer at 2000 records/s (-Dstallscope.bench.rate) of 1 KiB with acks=all and linger.ms=0, in
 * this (warm) JVM: a warm-up unmeasured (the broker's JIT and the client settle), then the measured
 * window. Arms ({@link RollSpikeArm}, -Dstallscope.bench.arms) run in an order rotated every round so
 * drift on the shared machine hits all alike, fresh broker per run; medians over the rounds. Next to the
 * producer's latencies: who made the snapshot fsyncs (the shim's log), the agent's own timings of the
 * rolls and of what a roll is made of (all on the request handler, under the partition lock), and the
 * agent's start-up line. -Dstallscope.bench.versions=3.6.2 runs one version (to keep an exclusive hold
 * of the machine short). What sets the floor: both JVMs' stops (GC pauses, every safepoint) from their
 * logs, the share of the window something waited for a CPU (/proc/pressure/cpu), and what the records
 * that make p99.9 were in flight with ({@link RollSpikeSlowRecords}; the slowest of each run, annotated,
 * go to roll-spike-VERSIONS-slowest.md). -Dstallscope.bench.broker.jvm="-XX:+UseZGC" gives every arm's
 * broker the same extra JVM options (a collector chosen there replaces the harness's G1); the test JVM's
 * collector is failsafe's -DargLine. -Dstallscope.bench.disk=xfs|ext4 ({@link BenchDisk}, root) runs every
 * broker on a real loop-device file system instead of the shim: the arms with an fsync delay get the demo's
 * 20 write IOPS from the cgroup I/O controller (so an fsync waits for its own writes), the others no limit;
 * the shim is then loaded with no delay at all, only to log who fsyncs the snapshots.
 */
@EnabledIfSystemProperty(named = "stallscope.bench", matches = "true")
class RollSpikeBenchIT {
    private static final String TOPIC = "spike";
    private static final int ROUNDS = Integer.getInteger("stallscope.bench.rounds", 3);
    private static final Duration WARM_UP = Duration.ofSeconds(Integer.getInteger("stallscope.bench.warmup.seconds", 30));
    private static final Duration MEASURED = Duration.ofSeconds(Integer.getInteger("stallscope.bench.seconds", 30));
    /** Records per second (-Dstallscope.bench.rate): lower rates leave the two cores more idle. */
    private static final int RATE = Integer.getInteger("stallscope.bench.rate", 2000);
    /** A record this late waited for something of the order of the injected 50 ms fsync. */
    private static final double STALLED_MS = 40;
    private static final List<String> VERSIONS = List.of(System.getProperty("stallscope.bench.versions", "3.6.2,2.8.2")
        .split(","));
    private static final List<RollSpikeArm> ARMS = RollSpikeArm.parse(System.getProperty("stallscope.bench.arms",
        "off,roll-flush"));
    /** JVM options for every arm's broker, e.g. a low-pause collector; empty: the harness's G1 (512 MiB heap). */
    private static final List<String> BROKER_JVM = brokerJvm(System.getProperty("stallscope.bench.broker.jvm", ""));
    private static final int SLOWEST_KEPT = 8;
    /** Samples the produce path's run-queue wait ({@link RollSpikeRunQueue}); off by default, it costs some CPU. */
    private static final boolean RUN_QUEUE = Boolean.getBoolean("stallscope.bench.runqueue");
    private static final List<String> PARTS = List.of("segment_inactive", "snapshot_take", "snapshot_write", "index_resize");
    /** The real file system of -Dstallscope.bench.disk, or null for the shim. */
    private static final FsType REAL_FS = BenchDisk.selected();
    /** "", or "-xfs"/"-ext4": the real disk's tables do not overwrite the shim's. */
    private static final String DISK_SUFFIX = REAL_FS == null ? "" : "-" + REAL_FS.kernelName();

    @Test
    @Timeout(value = 60, unit = TimeUnit.MINUTES)
    void rollSpikeByArm() throws Exception {
        Path out = Path.of(System.getProperty("stallscope.it.target", "target"), "bench",
            "roll-spike-" + String.join("_", VERSIONS) + DISK_SUFFIX + ".md");
        Files.createDirectories(out.getParent());
        Path testJvmGc = out.resolveSibling("roll-spike-" + String.join("_", VERSIONS) + DISK_SUFFIX + "-test-jvm-gc.log");
        Files.deleteIfExists(testJvmGc);
        RollSpikeGcPauses.logThisJvmTo(testJvmGc);
        Path slowest = out.resolveSibling("roll-spike-" + String.join("_", VERSIONS) + DISK_SUFFIX + "-slowest.md");
        Files.writeString(slowest, "The slowest records of each measured window, when they were sent (s into the"
            + " window) and how long of their flight each JVM stood still (safepoints, allocation stalls; ms)\n\n");
        Files.writeString(out, "disk: " + (REAL_FS == null ? "shim (LD_PRELOAD): every fsync in the partition directory"
            + " delayed 50 ms on the arms with a delay" : "real " + REAL_FS.kernelName() + " on a loop device, "
            + BenchDisk.WRITE_IOPS + " write IOPS (cgroup I/O controller) on the arms with a delay, no limit on the others;"
            + " each run's disk below") + "\n\n"
            + "load average at start: " + LoadAverage.now() + "; arms " + ARMS.stream().map(a -> a.label).toList()
            + ", " + RATE + " records/s, warm-up " + WARM_UP.toSeconds() + " s, measured " + MEASURED.toSeconds() + " s; broker JVM options "
            + (BROKER_JVM.isEmpty() ? "(harness default: G1, MaxGCPauseMillis=20)" : BROKER_JVM) + ", 512 MiB heap;"
            + " test JVM " + System.getProperty("java.vm.version") + ", collector " + RollSpikeGcPauses.thisJvmCollector()
            + ", max heap " + Runtime.getRuntime().maxMemory() / (1 << 20) + " MiB"
            + (RUN_QUEUE ? "; run-queue wait sampled every " + RollSpikeRunQueue.PERIOD_MS + " ms" : "") + "\n\n"
            + "| Kafka | arm | round | load 1m | p50 ms | p99 ms | p99.9 ms | max ms | records >= 40 ms | rolls"
            + " | mean roll ms | max roll ms | snapshot fsyncs handler / scheduler"
            + " | per roll ms: inactive / snapshot_take / snapshot_write / index_resize | max records_append ms"
            + " | broker: GC pauses n / max / total ms; safepoints n / max / total ms"
            + " | test JVM: GC pauses; safepoints | % of window some task waited for a CPU"
            + " | records >= p99.9 in events: with a broker stop / test JVM stop / neither (; their median ms, of it CPU wait of broker / producer threads) |\n"
            + "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        Map<String, List<Run>> results = new LinkedHashMap<>();
        StringBuilder startup = new StringBuilder("\nAgent start-up lines (first round of each arm):\n\n");
        StringBuilder disks = new StringBuilder("\nDisks (each run's, at its end):\n\n");
        for (String version : VERSIONS) {
            for (int round = 1; round <= ROUNDS; round++) {
                for (int i = 0; i < ARMS.size(); i++) {
                    RollSpikeArm arm = ARMS.get((i + round - 1) % ARMS.size());
                    Run run = run(version, arm, round, testJvmGc);
                    results.computeIfAbsent(version + " " + arm.label, k -> new ArrayList<>()).add(run);
                    if (round == 1) {
                        startup.append("- ").append(version).append(' ').append(arm.label).append(": `")
                            .append(run.startupLine()).append("`\n");
                    }
                    disks.append("- ").append(version).append(' ').append(arm.label).append(" round ").append(round)
                        .append(": ").append(run.disk()).append('\n');
                    Latencies r = run.latencies();
                    Files.writeString(out, String.format(
                        "| %s | %s | %d | %s | %.0f | %.0f | %.0f | %.0f | %d | %.0f | %.1f | %.1f | %d / %d | %s | %.1f | %s | %s | %.0f | %s |%n",
                        version, arm.label, round, run.load(), r.p50(), r.p99(), r.p999(), r.max(), r.stalled(),
                        run.rolls(), run.meanRollMs(), run.maxRollMs(), run.snapshotFsyncsOnHandlers(),
                        run.snapshotFsyncsOnScheduler(), run.partsPerRoll(), run.maxAppendMs(), run.gc(), run.testJvmGc(),
                        run.cpuWaitedPercent(), run.slow()), StandardOpenOption.APPEND);
                    Files.writeString(slowest, "- " + version + " " + arm.label + " round " + round + " (p99.9 "
                        + String.format("%.1f", r.p999()) + " ms; broker " + run.gc().collector() + "): "
                        + String.join("; ", run.slow().slowest()) + "\n", StandardOpenOption.APPEND);
                }
            }
        }
        StringBuilder medians = new StringBuilder("\n| Kafka | arm | median p50 ms | median p99 ms | median p99.9 ms"
            + " | median max ms | median records >= 40 ms | median mean roll ms | median broker GC max ms"
            + " | median test JVM GC max ms | records >= p99.9, all rounds: broker stop / test JVM stop / neither |\n"
            + "|---|---|---|---|---|---|---|---|---|---|---|\n");
        results.forEach((k, rs) -> medians.append(String.format(
            "| %s | %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.1f | %.1f | %.1f | %d / %d / %d |%n",
            k.split(" ")[0], k.split(" ")[1], median(rs, r -> r.latencies().p50()), median(rs, r -> r.latencies().p99()),
            median(rs, r -> r.latencies().p999()), median(rs, r -> r.latencies().max()),
            median(rs, r -> r.latencies().stalled()), median(rs, Run::meanRollMs), median(rs, r -> r.gc().maxMs()),
            median(rs, r -> r.testJvmGc().maxMs()), rs.stream().mapToInt(r -> r.slow().withBrokerStop()).sum(),
            rs.stream().mapToInt(r -> r.slow().withTestJvmStop()).sum(), rs.stream().mapToInt(r -> r.slow().neither()).sum())));
        medians.append(startup);
        medians.append(disks);
        medians.append("\nload average at end: ").append(LoadAverage.now()).append('\n');
        Files.writeString(out, medians, StandardOpenOption.APPEND);
        System.out.println(Files.readString(out));
    }

    /** The producer's latencies in ms over the measured window, and how many records took STALLED_MS or more. */
    record Latencies(double p50, double p99, double p999, double max, int records, int stalled) {
    }

    /** The producer's view, and the agent's: rolls (each holds the partition lock) and what they were made of. */
    record Run(Latencies latencies, String load, double rolls, double meanRollMs, double maxRollMs,
               long snapshotFsyncsOnHandlers, long snapshotFsyncsOnScheduler, String partsPerRoll, double maxAppendMs,
               String startupLine, RollSpikeGcPauses gc, RollSpikeGcPauses testJvmGc, double cpuWaitedPercent,
               RollSpikeSlowRecords slow, String disk) {
    }

    private static Run run(String version, RollSpikeArm arm, int round, Path testJvmGc) throws Exception {
        Path tmp = Files.createTempDirectory("spike");
        // on a real disk the shim only logs the fsyncs (no delay): the kernel's throttle makes them slow
        SlowDisk disk = SlowDisk.logTo(tmp.resolve("shim.log")).slowFsync("/" + TOPIC + "-0/",
            REAL_FS == null ? arm.fsyncDelay : Duration.ZERO);
        String load = LoadAverage.oneMinute();
        MitigatedBroker mb = broker(version, arm, disk);
        Path gcLog = tmp.resolve("gc.log");
        BrokerSpec.Builder spec = mb.spec.toBuilder().jvmArgs(BROKER_JVM).jvmArg(RollSpikeGcPauses.jvmArg(gcLog));
        try (BenchDisk real = REAL_FS == null ? null : BenchDisk.create(REAL_FS, arm.fsyncDelay.isZero() ? IoLimits.NONE
                 : IoLimits.NONE.withWriteIops(BenchDisk.WRITE_IOPS), out("realdisk"));
             KafkaBroker broker = new LocalKafkaBroker(real == null ? spec.build() : real.applyTo(spec).build())) {
            broker.start();
            KafkaClients.createTopic(broker, TOPIC, 1, arm.topicConfig());
            Latencies perf;
            RollSpikeGcPauses gc;
            RollSpikeGcPauses testGc;
            double cpuWaited;
            RollSpikeSlowRecords slow;
            try (LatencyProducer producer = new LatencyProducer(KafkaClients.producerConfig(broker), TOPIC, RATE)) {
                Thread.sleep(WARM_UP.toMillis()); // not measured: the broker's JIT warm-up would dominate
                RollSpikeRunQueue runQueue = RUN_QUEUE ? new RollSpikeRunQueue(broker.pid()) : null;
                Thread.sleep(RUN_QUEUE ? 50 : 0); // its first samples are before the window
                long from = System.nanoTime();
                long fromMillis = System.currentTimeMillis();
                long waitedFrom = cpuWaitedMicros();
                Thread.sleep(MEASURED.toMillis());
                long to = System.nanoTime();
                long toMillis = System.currentTimeMillis();
                cpuWaited = waitedFrom < 0 ? Double.NaN : (cpuWaitedMicros() - waitedFrom) / 10.0 / (toMillis - fromMillis);
                Thread.sleep(2000); // the last records' acknowledgements
                if (runQueue != null) {
                    runQueue.close();
                }
                // stops that ended up to 2 s after the window can still have held a record sent in it
                gc = RollSpikeGcPauses.in(gcLog, fromMillis, toMillis);
                testGc = RollSpikeGcPauses.in(testJvmGc, fromMillis, toMillis);
                RollSpikeGcPauses brokerStops = RollSpikeGcPauses.in(gcLog, fromMillis, toMillis + 2000);
                RollSpikeGcPauses testStops = RollSpikeGcPauses.in(testJvmGc, fromMillis, toMillis + 2000);
                perf = new Latencies(producer.quantileMs(from, to, 0.5), producer.quantileMs(from, to, 0.99),
                    producer.quantileMs(from, to, 0.999), producer.quantileMs(from, to, 1.0), producer.count(from, to),
                    producer.countAtLeastMs(from, to, STALLED_MS));
                slow = RollSpikeSlowRecords.of(producer.samples(from, to), perf.p999(), from, fromMillis, brokerStops,
                    testStops, runQueue, SLOWEST_KEPT);
            }
            Files.copy(gcLog, out(String.format("roll-spike-logs/%s-%s-round%d%s-broker-gc.log", version, arm.label, round, DISK_SUFFIX)),
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            PrometheusScrape m = PrometheusScrape.scrape(mb.prometheusPort);
            double rolls = m.ops("log_roll", "request_handler");
            StringBuilder parts = new StringBuilder();
            for (String op : PARTS) {
                parts.append(parts.isEmpty() ? "" : " / ").append(String.format("%.2f",
                    rolls == 0 ? 0 : 1000 * sum(m, "stallscope_op_seconds_sum", op) / rolls));
            }
            List<ShimCall> snapshotFsyncs = RollFlushIT.snapshotFsyncs(disk);
            return new Run(perf, load, rolls, rolls == 0 ? 0 : 1000 * sum(m, "stallscope_op_seconds_sum", "log_roll") / rolls,
                1000 * sum(m, "stallscope_op_seconds_max", "log_roll"),
                snapshotFsyncs.stream().filter(c -> c.thread().startsWith("data-plane-kafk")).count(),
                snapshotFsyncs.stream().filter(c -> c.thread().startsWith("kafka-schedule")).count(),
                parts.toString(), 1000 * sum(m, "stallscope_op_seconds_max", "records_append"),
                mitigationsPart(RollFlushIT.startupLine(broker)), gc, testGc, cpuWaited, slow,
                real == null ? "shim, fsyncs delayed " + arm.fsyncDelay.toMillis() + " ms" : real.describe());
        }
    }

    private static Path out(String name) throws java.io.IOException {
        Path p = Path.of(System.getProperty("stallscope.it.target", "target"), "bench", name);
        Files.createDirectories(p.getParent());
        return p;
    }

    /** Options for every broker; a collector chosen there must replace the harness's -XX:+UseG1GC (two collectors: no JVM). */
    static List<String> brokerJvm(String options) {
        List<String> args = new ArrayList<>();
        for (String a : options.trim().split("\\s+")) {
            if (a.isEmpty()) {
                continue;
            }
            if (a.matches("-XX:\\+Use\\w+GC") && !a.equals("-XX:+UseG1GC") && !args.contains("-XX:-UseG1GC")) {
                args.add("-XX:-UseG1GC");
            }
            args.add(a);
        }
        return List.copyOf(args);
    }

    /** Microseconds some task on this machine waited for a CPU (/proc/pressure/cpu "some total"); -1 if unknown. */
    private static long cpuWaitedMicros() {
        try {
            String some = Files.readAllLines(Path.of("/proc/pressure/cpu")).get(0);
            return Long.parseLong(some.replaceFirst(".*total=(\\d+).*", "$1"));
        } catch (Exception e) {
            return -1;
        }
    }

    /** The agent under test; the baseline arm runs the earlier build named by -Dstallscope.bench.baseline.jar. */
    private static MitigatedBroker broker(String version, RollSpikeArm arm, SlowDisk disk) {
        if (!arm.baseline()) {
            return new MitigatedBroker(version, "spike", arm.agentOptions, disk);
        }
        String baseline = System.getProperty("stallscope.bench.baseline.jar");
        if (baseline == null) {
            throw new IllegalArgumentException("arm " + arm.label + " needs -Dstallscope.bench.baseline.jar=PATH");
        }
        String current = System.getProperty("stallscope.agent.jar");
        System.setProperty("stallscope.agent.jar", baseline); // MitigatedBroker reads the jar from this property
        try {
            return new MitigatedBroker(version, "spike", arm.agentOptions, disk);
        } finally {
            if (current == null) {
                System.clearProperty("stallscope.agent.jar");
            } else {
                System.setProperty("stallscope.agent.jar", current);
            }
        }
    }

    /** "Stallscope 0.1.0 active ... in Kafka 3.9.2 ...: ..., mitigations [roll-flush not needed ...], profile off": the
     *  version and what the agent said of its mitigations. */
    static String mitigationsPart(String startupLine) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(in Kafka \\S+).*(mitigations (off|\\[.*?\\]))")
            .matcher(startupLine);
        return m.find() ? m.group(1) + " ... " + m.group(2) : startupLine;
    }

    /** An op's samples on the request handlers (where the partition lock is held for produce). */
    private static double sum(PrometheusScrape m, String metric, String op) {
        return m.sum(metric, Map.of("op", op, "role", "request_handler"));
    }

    private static double median(List<Run> rs, ToDoubleFunction<Run> f) {
        double[] v = rs.stream().mapToDouble(f).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
