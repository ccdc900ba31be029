package io.stallscope.it.mitigate;

import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.LocalKafkaBroker;
import io.stallscope.it.broker.ProducerPerfResult;
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
 * LD_PRELOAD shim). 1 MiB segments, Kafka's ProducerPerformance at 2000 records/s of 1 KiB with acks=all, after an
 * unmeasured warm-up run of 10 s. A/B
 * alternating, fresh broker per run; medians over the rounds.
 */
@EnabledIfSystemProperty(named = "stallscope.bench", matches = "true")
class RollSpikeBenchIT {
    private static final String TOPIC = "spike";
    private static final int ROUNDS = Integer.getInteger("stallscope.bench.rounds", 3);
    private static final int RECORDS = Integer.getInteger("stallscope.bench.records", 40_000);
    private static final int RATE = 2000;

    @Test
    @Timeout(value = 60, unit = TimeUnit.MINUTES)
    void rollSpikeWithAndWithoutRollFlush() throws Exception {
        Path out = Path.of(System.getProperty("stallscope.it.target", "target"), "bench", "roll-spike.md");
        Files.createDirectories(out.getParent());
        Files.writeString(out, "| Kafka | roll-flush | round | p50 ms | p99 ms | p99.9 ms | max ms | rolls | mean roll ms | max roll ms |\n|---|---|---|---|---|---|---|---|---|---|\n");
        Map<String, List<ProducerPerfResult>> results = new LinkedHashMap<>();
        Map<String, List<Double>> rollMeans = new LinkedHashMap<>();
        for (String version : List.of("3.6.2", "2.8.2")) {
            for (int round = 1; round <= ROUNDS; round++) {
                // alternate which variant goes first, so drift on the shared machine hits both alike
                List<Boolean> order = round % 2 == 1 ? List.of(false, true) : List.of(true, false);
                for (boolean on : order) {
                    Run run = run(version, on);
                    ProducerPerfResult r = run.perf();
                    results.computeIfAbsent(version + (on ? " on" : " off"), k -> new ArrayList<>()).add(r);
                    rollMeans.computeIfAbsent(version + (on ? " on" : " off"), k -> new ArrayList<>()).add(run.meanRollMs());
                    Files.writeString(out, String.format("| %s | %s | %d | %.0f | %.0f | %.0f | %.0f | %.0f | %.1f | %.1f |%n", version,
                        on ? "on" : "off", round, r.p50Ms(), r.p99Ms(), r.p999Ms(), r.maxLatencyMs(), run.rolls(),
                        run.meanRollMs(), run.maxRollMs()), StandardOpenOption.APPEND);
                }
            }
        }
        StringBuilder medians = new StringBuilder("\n| Kafka | roll-flush | median p50 ms | median p99 ms | median p99.9 ms | median max ms | median mean roll ms |\n|---|---|---|---|---|---|---|\n");
        results.forEach((k, rs) -> medians.append(String.format("| %s | %s | %.0f | %.0f | %.0f | %.0f | %.1f |%n",
            k.split(" ")[0], k.split(" ")[1], median(rs, ProducerPerfResult::p50Ms), median(rs, ProducerPerfResult::p99Ms),
            median(rs, ProducerPerfResult::p999Ms), median(rs, ProducerPerfResult::maxLatencyMs),
            rollMeans.get(k).stream().sorted().toList().get(rollMeans.get(k).size() / 2))));
        Files.writeString(out, medians, StandardOpenOption.APPEND);
        System.out.println(Files.readString(out));
    }

    /** The producer's view, and the agent's: rolls (each holds the partition lock) and how long they took. */
    record Run(ProducerPerfResult perf, double rolls, double meanRollMs, double maxRollMs) {
    }

    private static Run run(String version, boolean rollFlush) throws Exception {
        Path tmp = Files.createTempDirectory("spike");
        SlowDisk disk = SlowDisk.logTo(tmp.resolve("shim.log")).slowFsync("/" + TOPIC + "-0/", Duration.ofMillis(50));
        MitigatedBroker mb = new MitigatedBroker(version, "spike", rollFlush ? "mitigate=roll-flush" : "", disk);
        try (KafkaBroker broker = new LocalKafkaBroker(mb.spec)) {
            broker.start();
            KafkaClients.createTopic(broker, TOPIC, 1, KafkaClients.SMALL_SEGMENTS);
            Map<String, String> props = Map.of("linger.ms", "0", "enable.idempotence", "true");
            // not measured: the broker's JIT warm-up would dominate the first seconds
            KafkaClients.producerPerformance(broker, TOPIC, RATE * 10L, 1024, RATE, props, Duration.ofMinutes(5));
            ProducerPerfResult perf = KafkaClients.producerPerformance(broker, TOPIC, RECORDS, 1024, RATE, props,
                Duration.ofMinutes(5));
            Scrape m = Scrape.of(mb.prometheusPort);
            Map<String, String> roll = Map.of("op", "log_roll", "role", "request_handler");
            double rolls = m.sum("stallscope_op_seconds_count", roll);
            return new Run(perf, rolls, 1000 * m.sum("stallscope_op_seconds_sum", roll) / rolls,
                1000 * m.sum("stallscope_op_seconds_max", roll));
        }
    }

    private static double median(List<ProducerPerfResult> rs, java.util.function.ToDoubleFunction<ProducerPerfResult> f) {
        double[] v = rs.stream().mapToDouble(f).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
