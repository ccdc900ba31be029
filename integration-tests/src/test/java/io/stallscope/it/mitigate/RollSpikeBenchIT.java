package io.stallscope.it.mitigate;

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

/**
 * Experiment, not a CI test (runs only with -Dstallscope.bench=true; see docs/mitigations.md): the
 * produce latency spike of segment rolls on Kafka 3.6.2 and 2.8.2, with and without roll-flush.
 * Simulated: a slow disk, every fsync of a file in the topic's partition directory delayed 50 ms (the
 * LD_PRELOAD shim). 1 MiB segments, a steady idempotent producer at 2000 records/s of 1 KiB with acks=all and
 * linger.ms=0, in this (warm) JVM: 30 s unmeasured (the broker's JIT and the client settle), then 30 s
 * measured. (Kafka's ProducerPerformance was used before: a fresh JVM whose own first seconds of JIT
 * showed up in the tail, with or without the mitigation.) A/B
 * alternating, fresh broker per run; medians over the rounds. Next to the producer's latencies, who
 * made the snapshot fsyncs (the shim's log: request handler or scheduler thread) and the agent's own
 * timings of the rolls, so a run shows whether the mitigation did move the fsync off the lock.
 * -Dstallscope.bench.versions=3.6.2 runs one version (to keep an exclusive hold of the machine short).
 */
@EnabledIfSystemProperty(named = "stallscope.bench", matches = "true")
class RollSpikeBenchIT {
    private static final String TOPIC = "spike";
    private static final int ROUNDS = Integer.getInteger("stallscope.bench.rounds", 3);
    private static final Duration WARM_UP = Duration.ofSeconds(Integer.getInteger("stallscope.bench.warmup.seconds", 30));
    private static final Duration MEASURED = Duration.ofSeconds(Integer.getInteger("stallscope.bench.seconds", 30));
    private static final int RATE = 2000;
    private static final List<String> VERSIONS = List.of(System.getProperty("stallscope.bench.versions", "3.6.2,2.8.2")
        .split(","));

    @Test
    @Timeout(value = 60, unit = TimeUnit.MINUTES)
    void rollSpikeWithAndWithoutRollFlush() throws Exception {
        Path out = Path.of(System.getProperty("stallscope.it.target", "target"), "bench",
            "roll-spike-" + String.join("_", VERSIONS) + ".md");
        Files.createDirectories(out.getParent());
        Files.writeString(out, "uptime at start: " + Uptime.now() + "\n\n"
            + "| Kafka | roll-flush | round | p50 ms | p99 ms | p99.9 ms | max ms | rolls | mean roll ms | max roll ms"
            + " | snapshot fsyncs handler / scheduler | max snapshot_write on handler ms |\n"
            + "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        Map<String, List<Latencies>> results = new LinkedHashMap<>();
        Map<String, List<Double>> rollMeans = new LinkedHashMap<>();
        for (String version : VERSIONS) {
            for (int round = 1; round <= ROUNDS; round++) {
                // alternate which variant goes first, so drift on the shared machine hits both alike
                List<Boolean> order = round % 2 == 1 ? List.of(false, true) : List.of(true, false);
                for (boolean on : order) {
                    Run run = run(version, on);
                    Latencies r = run.latencies();
                    results.computeIfAbsent(version + (on ? " on" : " off"), k -> new ArrayList<>()).add(r);
                    rollMeans.computeIfAbsent(version + (on ? " on" : " off"), k -> new ArrayList<>()).add(run.meanRollMs());
                    Files.writeString(out, String.format("| %s | %s | %d | %.0f | %.0f | %.0f | %.0f | %.0f | %.1f | %.1f | %d / %d | %.1f |%n",
                        version, on ? "on" : "off", round, r.p50(), r.p99(), r.p999(), r.max(), run.rolls(),
                        run.meanRollMs(), run.maxRollMs(), run.snapshotFsyncsOnHandlers(), run.snapshotFsyncsOnScheduler(),
                        run.maxSnapshotWriteMs()), StandardOpenOption.APPEND);
                }
            }
        }
        StringBuilder medians = new StringBuilder("\n| Kafka | roll-flush | median p50 ms | median p99 ms | median p99.9 ms | median max ms | median mean roll ms |\n|---|---|---|---|---|---|---|\n");
        results.forEach((k, rs) -> medians.append(String.format("| %s | %s | %.0f | %.0f | %.0f | %.0f | %.1f |%n",
            k.split(" ")[0], k.split(" ")[1], median(rs, Latencies::p50), median(rs, Latencies::p99),
            median(rs, Latencies::p999), median(rs, Latencies::max),
            rollMeans.get(k).stream().sorted().toList().get(rollMeans.get(k).size() / 2))));
        medians.append("\nuptime at end: ").append(Uptime.now()).append('\n');
        Files.writeString(out, medians, StandardOpenOption.APPEND);
        System.out.println(Files.readString(out));
    }

    /** The producer's view, and the agent's: rolls (each holds the partition lock) and how long they took. */
    /** The producer's latencies in ms over the measured window. */
    record Latencies(double p50, double p99, double p999, double max, int records) {
    }

    record Run(Latencies latencies, double rolls, double meanRollMs, double maxRollMs,
               long snapshotFsyncsOnHandlers, long snapshotFsyncsOnScheduler, double maxSnapshotWriteMs) {
    }

    private static Run run(String version, boolean rollFlush) throws Exception {
        Path tmp = Files.createTempDirectory("spike");
        SlowDisk disk = SlowDisk.logTo(tmp.resolve("shim.log")).slowFsync("/" + TOPIC + "-0/", Duration.ofMillis(50));
        MitigatedBroker mb = new MitigatedBroker(version, "spike", rollFlush ? "mitigate=roll-flush" : "", disk);
        try (KafkaBroker broker = new LocalKafkaBroker(mb.spec)) {
            broker.start();
            KafkaClients.createTopic(broker, TOPIC, 1, KafkaClients.SMALL_SEGMENTS);
            Latencies perf;
            try (LatencyProducer producer = new LatencyProducer(KafkaClients.producerConfig(broker), TOPIC, RATE)) {
                Thread.sleep(WARM_UP.toMillis()); // not measured: the broker's JIT warm-up would dominate
                long from = System.nanoTime();
                Thread.sleep(MEASURED.toMillis());
                long to = System.nanoTime();
                Thread.sleep(2000); // the last records' acknowledgements
                perf = new Latencies(producer.quantileMs(from, to, 0.5), producer.quantileMs(from, to, 0.99),
                    producer.quantileMs(from, to, 0.999), producer.quantileMs(from, to, 1.0), producer.count(from, to));
            }
            Scrape m = Scrape.of(mb.prometheusPort);
            Map<String, String> roll = Map.of("op", "log_roll", "role", "request_handler");
            double rolls = m.sum("stallscope_op_seconds_count", roll);
            List<ShimCall> snapshotFsyncs = RollFlushIT.snapshotFsyncs(disk);
            return new Run(perf, rolls, 1000 * m.sum("stallscope_op_seconds_sum", roll) / rolls,
                1000 * m.sum("stallscope_op_seconds_max", roll),
                snapshotFsyncs.stream().filter(c -> c.thread().startsWith("data-plane-kafk")).count(),
                snapshotFsyncs.stream().filter(c -> c.thread().startsWith("kafka-schedule")).count(),
                1000 * m.sum("stallscope_op_seconds_max", Map.of("op", "snapshot_write", "role", "request_handler")));
        }
    }

    private static double median(List<Latencies> rs, java.util.function.ToDoubleFunction<Latencies> f) {
        double[] v = rs.stream().mapToDouble(f).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
