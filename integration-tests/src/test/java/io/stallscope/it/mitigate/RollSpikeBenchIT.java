package io.stallscope.it.mitigate;

import io.stallscope.it.broker.PrometheusScrape;
import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.LocalKafkaBroker;
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
 * Experiment, not a CI test (runs only with -Dstallscope.bench=true; see docs/mitigations.md): the
 * produce latency spike of segment rolls, with and without roll-flush. Simulated: a slow disk, every
 * fsync of a file in the topic's partition directory delayed 50 ms (the LD_PRELOAD shim). 1 MiB
 * segments, a steady idempotent producer at 2000 records/s of 1 KiB with acks=all and linger.ms=0, in
 * this (warm) JVM: a warm-up unmeasured (the broker's JIT and the client settle), then the measured
 * window. Arms ({@link RollSpikeArm}, -Dstallscope.bench.arms) run in an order rotated every round so
 * drift on the shared machine hits all alike, fresh broker per run; medians over the rounds. Next to the
 * producer's latencies: who made the snapshot fsyncs (the shim's log), the agent's own timings of the
 * rolls and of what a roll is made of (all on the request handler, under the partition lock), and the
 * agent's start-up line. -Dstallscope.bench.versions=3.6.2 runs one version (to keep an exclusive hold
 * of the machine short).
 */
@EnabledIfSystemProperty(named = "stallscope.bench", matches = "true")
class RollSpikeBenchIT {
    private static final String TOPIC = "spike";
    private static final int ROUNDS = Integer.getInteger("stallscope.bench.rounds", 3);
    private static final Duration WARM_UP = Duration.ofSeconds(Integer.getInteger("stallscope.bench.warmup.seconds", 30));
    private static final Duration MEASURED = Duration.ofSeconds(Integer.getInteger("stallscope.bench.seconds", 30));
    private static final int RATE = 2000;
    /** A record this late waited for something of the order of the injected 50 ms fsync. */
    private static final double STALLED_MS = 40;
    private static final List<String> VERSIONS = List.of(System.getProperty("stallscope.bench.versions", "3.6.2,2.8.2")
        .split(","));
    private static final List<RollSpikeArm> ARMS = RollSpikeArm.parse(System.getProperty("stallscope.bench.arms",
        "off,roll-flush"));
    private static final List<String> PARTS = List.of("segment_inactive", "snapshot_take", "snapshot_write", "index_resize");

    @Test
    @Timeout(value = 60, unit = TimeUnit.MINUTES)
    void rollSpikeByArm() throws Exception {
        Path out = Path.of(System.getProperty("stallscope.it.target", "target"), "bench",
            "roll-spike-" + String.join("_", VERSIONS) + ".md");
        Files.createDirectories(out.getParent());
        Files.writeString(out, "uptime at start: " + Uptime.now() + "; arms " + ARMS.stream().map(a -> a.label).toList()
            + ", warm-up " + WARM_UP.toSeconds() + " s, measured " + MEASURED.toSeconds() + " s\n\n"
            + "| Kafka | arm | round | load 1m | p50 ms | p99 ms | p99.9 ms | max ms | records >= 40 ms | rolls"
            + " | mean roll ms | max roll ms | snapshot fsyncs handler / scheduler"
            + " | per roll ms: inactive / snapshot_take / snapshot_write / index_resize | max records_append ms"
            + " | broker GC pauses in window: n / max ms / total ms |\n"
            + "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        Map<String, List<Run>> results = new LinkedHashMap<>();
        StringBuilder startup = new StringBuilder("\nAgent start-up lines (first round of each arm):\n\n");
        for (String version : VERSIONS) {
            for (int round = 1; round <= ROUNDS; round++) {
                for (int i = 0; i < ARMS.size(); i++) {
                    RollSpikeArm arm = ARMS.get((i + round - 1) % ARMS.size());
                    Run run = run(version, arm);
                    results.computeIfAbsent(version + " " + arm.label, k -> new ArrayList<>()).add(run);
                    if (round == 1) {
                        startup.append("- ").append(version).append(' ').append(arm.label).append(": `")
                            .append(run.startupLine()).append("`\n");
                    }
                    Latencies r = run.latencies();
                    Files.writeString(out, String.format(
                        "| %s | %s | %d | %s | %.0f | %.0f | %.0f | %.0f | %d | %.0f | %.1f | %.1f | %d / %d | %s | %.1f | %s |%n",
                        version, arm.label, round, run.load(), r.p50(), r.p99(), r.p999(), r.max(), r.stalled(),
                        run.rolls(), run.meanRollMs(), run.maxRollMs(), run.snapshotFsyncsOnHandlers(),
                        run.snapshotFsyncsOnScheduler(), run.partsPerRoll(), run.maxAppendMs(), run.gc()), StandardOpenOption.APPEND);
                }
            }
        }
        StringBuilder medians = new StringBuilder("\n| Kafka | arm | median p50 ms | median p99 ms | median p99.9 ms"
            + " | median max ms | median records >= 40 ms | median mean roll ms |\n|---|---|---|---|---|---|---|---|\n");
        results.forEach((k, rs) -> medians.append(String.format("| %s | %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.1f |%n",
            k.split(" ")[0], k.split(" ")[1], median(rs, r -> r.latencies().p50()), median(rs, r -> r.latencies().p99()),
            median(rs, r -> r.latencies().p999()), median(rs, r -> r.latencies().max()),
            median(rs, r -> r.latencies().stalled()), median(rs, Run::meanRollMs))));
        medians.append(startup);
        medians.append("\nuptime at end: ").append(Uptime.now()).append('\n');
        Files.writeString(out, medians, StandardOpenOption.APPEND);
        System.out.println(Files.readString(out));
    }

    /** The producer's latencies in ms over the measured window, and how many records took STALLED_MS or more. */
    record Latencies(double p50, double p99, double p999, double max, int records, int stalled) {
    }

    /** The producer's view, and the agent's: rolls (each holds the partition lock) and what they were made of. */
    record Run(Latencies latencies, String load, double rolls, double meanRollMs, double maxRollMs,
               long snapshotFsyncsOnHandlers, long snapshotFsyncsOnScheduler, String partsPerRoll, double maxAppendMs,
               String startupLine, RollSpikeGcPauses gc) {
    }

    private static Run run(String version, RollSpikeArm arm) throws Exception {
        Path tmp = Files.createTempDirectory("spike");
        SlowDisk disk = SlowDisk.logTo(tmp.resolve("shim.log")).slowFsync("/" + TOPIC + "-0/", arm.fsyncDelay);
        String load = Uptime.now().split(" ")[2];
        MitigatedBroker mb = broker(version, arm, disk);
        Path gcLog = tmp.resolve("gc.log");
        try (KafkaBroker broker = new LocalKafkaBroker(mb.spec.toBuilder().jvmArg(RollSpikeGcPauses.jvmArg(gcLog)).build())) {
            broker.start();
            KafkaClients.createTopic(broker, TOPIC, 1, arm.topicConfig());
            Latencies perf;
            RollSpikeGcPauses gc;
            try (LatencyProducer producer = new LatencyProducer(KafkaClients.producerConfig(broker), TOPIC, RATE)) {
                Thread.sleep(WARM_UP.toMillis()); // not measured: the broker's JIT warm-up would dominate
                long from = System.nanoTime();
                long fromMillis = System.currentTimeMillis();
                Thread.sleep(MEASURED.toMillis());
                long to = System.nanoTime();
                gc = RollSpikeGcPauses.in(gcLog, fromMillis, System.currentTimeMillis());
                Thread.sleep(2000); // the last records' acknowledgements
                perf = new Latencies(producer.quantileMs(from, to, 0.5), producer.quantileMs(from, to, 0.99),
                    producer.quantileMs(from, to, 0.999), producer.quantileMs(from, to, 1.0), producer.count(from, to),
                    producer.countAtLeastMs(from, to, STALLED_MS));
            }
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
                mitigationsPart(RollFlushIT.startupLine(broker)), gc);
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
