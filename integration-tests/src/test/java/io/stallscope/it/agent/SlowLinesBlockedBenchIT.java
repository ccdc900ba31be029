package io.stallscope.it.agent;

import io.stallscope.it.bench.LoadAverage;
import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.FreePorts;
import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.KafkaVersion;
import io.stallscope.it.broker.LocalKafkaBroker;
import io.stallscope.it.broker.LoggingConfigs;
import io.stallscope.it.broker.ProducerPerfResult;
import io.stallscope.it.broker.PrometheusScrape;
import io.stallscope.it.mitigate.BrokerJmx;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Benchmark, not a CI test (runs only with -Dstallscope.bench=true; scripts/bench-slow-lines; docs/lab/live-chain-safety.md):
 * does a slow-op line whose appender blocks hold up Kafka's threads? The broker's "stallscope" logger also appends
 * to a named pipe read at 256 bytes a second ({@link SlowLineFifo}), so once the pipe is full each line blocks its
 * writer in write(2) for a second or more, as a server.log on a stalled disk does. A roll storm (4 partitions,
 * 1 MiB segments, 3,000 records/s of 1 KiB, acks=all) on a fresh broker per run; arms, alternated in a rotated order
 * every round:
 * <ul>
 *   <li>{@code quiet}: the agent with slow.threshold=60m, so it writes no slow line;</li>
 *   <li>{@code blocked}: the agent with slow.threshold=200us and slow.log.per.minute=6000, so it writes lines
 *       faster than the pipe takes them;</li>
 *   <li>{@code blocked-old} (with -Dstallscope.bench.old.agent=JAR, e.g. the agent before issue 57): the same
 *       options on that jar, in the first round only: its producer stalls for minutes.</li>
 * </ul>
 * Per run: the producer's latencies, Kafka's own Produce LocalTimeMs (the handler's time on the request, the
 * partition lock's time included), the agent's slow ops and dropped lines, and the lines the pipe took.
 * -Dstallscope.bench.versions (default 3.6.2,4.1.2), -Dstallscope.bench.rounds (3),
 * -Dstallscope.bench.seconds (30). The disk: the build's own (target/), no throttle; the stall is the appender's.
 */
@EnabledIfSystemProperty(named = "stallscope.bench", matches = "true")
class SlowLinesBlockedBenchIT {
    private static final String TOPIC = "storm";
    private static final int RATE = 3000;
    private static final int RECORD_BYTES = 1024;
    private static final int PIPE_BYTES_PER_SECOND = 256;
    private static final int ROUNDS = Integer.getInteger("stallscope.bench.rounds", 3);
    private static final int SECONDS = Integer.getInteger("stallscope.bench.seconds", 30);
    private static final int WARM_UP_SECONDS = 15;
    private static final List<String> VERSIONS = List.of(System.getProperty("stallscope.bench.versions", "3.6.2,4.1.2")
        .split(","));
    private static final String OLD_AGENT = System.getProperty("stallscope.bench.old.agent", "");
    private static final String QUIET = "slow.threshold=60m";
    private static final String BLOCKING = "slow.threshold=200us,slow.log.per.minute=6000";

    record Arm(String name, Path jar, String options) {
    }

    record Run(String version, int round, String arm, ProducerPerfResult producer, double localP999, double localMean,
               double slowOps, double dropped, long pipeLines, String load) {
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.MINUTES)
    void slowLinesWithABlockingAppender() throws Exception {
        List<Arm> arms = new ArrayList<>(List.of(new Arm("quiet", AgentJar.path(), QUIET),
            new Arm("blocked", AgentJar.path(), BLOCKING)));
        if (!OLD_AGENT.isEmpty()) {
            arms.add(new Arm("blocked-old", Path.of(OLD_AGENT).toAbsolutePath(), BLOCKING));
        }
        Path target = Path.of(System.getProperty("stallscope.it.target", "target"));
        Path out = target.resolve("bench").resolve("slow-lines-blocked-" + String.join("_", VERSIONS) + ".md");
        Files.createDirectories(out.getParent());
        List<Run> runs = new ArrayList<>();
        for (String version : VERSIONS) {
            for (int round = 1; round <= ROUNDS; round++) {
                for (int i = 0; i < arms.size(); i++) {
                    Arm arm = arms.get((i + round - 1) % arms.size()); // rotated: drift hits every arm alike
                    if (arm.name().equals("blocked-old") && round > 1) {
                        continue; // it shows the defect in one round; each of its runs takes minutes
                    }
                    Run run = run(KafkaVersion.of(version), round, arm, target);
                    runs.add(run);
                    System.out.println(row(run));
                    Files.writeString(out, report(runs, arms));
                }
            }
        }
        System.out.println(report(runs, arms));
        // what makes the comparison mean anything: the blocked arms wrote lines and the pipe held them back
        for (Run r : runs) {
            if (r.arm().startsWith("blocked")) {
                assertThat(r.slowOps()).as("slow ops in %s", r).isPositive();
                assertThat(r.pipeLines()).as("lines through the pipe in %s", r).isPositive();
            } else {
                assertThat(r.pipeLines()).as("a quiet arm writes no slow line: %s", r).isLessThan(5);
            }
        }
    }

    private static Run run(KafkaVersion version, int round, Arm arm, Path target) throws Exception {
        Path dir = Files.createTempDirectory(Files.createDirectories(target.resolve("bench-work")), "slow-lines-");
        Path work = dir.resolve("broker");
        int jmxPort = FreePorts.next();
        int promPort = FreePorts.next();
        try (SlowLineFifo fifo = SlowLineFifo.create(dir.resolve("stallscope.fifo"), PIPE_BYTES_PER_SECOND)) {
            Path logConfig = dir.resolve(LoggingConfigs.fileName(version, "broker-fifo"));
            Files.writeString(logConfig, fifo.logConfig(version, work.resolve("broker.log")));
            BrokerSpec spec = BrokerSpec.builder(version).name("slow-lines-" + arm.name()).workDir(work)
                .javaAgent(arm.jar(), "prometheus=127.0.0.1:" + promPort + "," + arm.options())
                .jvmArgs(BrokerJmx.jvmArgs(jmxPort))
                // after the harness's own: the last -D wins
                .jvmArgs(List.of(LoggingConfigs.systemProperties(version, logConfig)))
                .build();
            try (KafkaBroker broker = new LocalKafkaBroker(spec)) {
                broker.start();
                KafkaClients.createTopic(broker, TOPIC, 4, KafkaClients.SMALL_SEGMENTS);
                Map<String, String> props = Map.of("linger.ms", "0");
                // warm-up: the JIT settles and, in the blocked arms, the pipe's 64 KiB fill
                KafkaClients.producerPerformance(broker, TOPIC, (long) RATE * WARM_UP_SECONDS, RECORD_BYTES, RATE, props,
                    Duration.ofMinutes(5));
                try (BrokerJmx jmx = BrokerJmx.connect(jmxPort)) {
                    BrokerJmx.Reading before = jmx.produce().get("LocalTimeMs");
                    PrometheusScrape p0 = PrometheusScrape.scrape(promPort);
                    long lines0 = fifo.lines();
                    String load = LoadAverage.oneMinute();
                    ProducerPerfResult r = KafkaClients.producerPerformance(broker, TOPIC, (long) RATE * SECONDS,
                        RECORD_BYTES, RATE, props, Duration.ofMinutes(10));
                    BrokerJmx.Reading after = jmx.produce().get("LocalTimeMs");
                    PrometheusScrape p1 = PrometheusScrape.scrape(promPort);
                    long lines = fifo.lines() - lines0;
                    fifo.drain(); // the stop must not wait for the trickle
                    return new Run(version.toString(), round, arm.name(), r, after.p999(), after.meanSince(before),
                        delta(p0, p1, "stallscope_slow_ops_total"), delta(p0, p1, "stallscope_slow_ops_dropped_total"),
                        lines, load);
                }
            }
        }
    }

    private static double delta(PrometheusScrape a, PrometheusScrape b, String name) {
        return b.sum(name, Map.of()) - a.sum(name, Map.of());
    }

    private static String row(Run r) {
        ProducerPerfResult p = r.producer();
        return String.format(Locale.ROOT, "| %s | %d | %s | %.0f | %.1f | %.1f | %.1f | %.0f | %.1f | %.2f | %.0f | %.0f | %d | %s |",
            r.version(), r.round(), r.arm(), p.recordsPerSec(), p.p50Ms(), p.p99Ms(), p.p999Ms(), p.maxLatencyMs(),
            r.localP999(), r.localMean(), r.slowOps(), r.dropped(), r.pipeLines(), r.load());
    }

    private static String report(List<Run> runs, List<Arm> arms) {
        StringBuilder sb = new StringBuilder();
        sb.append("# Slow-op lines with a blocking appender (SlowLinesBlockedBenchIT)\n\n")
            .append("Roll storm: 4 partitions, 1 MiB segments, ").append(RATE).append(" records/s of ")
            .append(RECORD_BYTES).append(" B, acks=all, linger.ms=0; ").append(SECONDS)
            .append(" s measured after a ").append(WARM_UP_SECONDS).append(" s warm-up; the \"stallscope\" logger also ")
            .append("appends to a pipe read at ").append(PIPE_BYTES_PER_SECOND).append(" B/s.\n")
            .append("LocalTimeMs: Kafka's Produce request metric (p99.9 of its reservoir, mean over the window).\n\n")
            .append("| Kafka | round | arm | records/s | p50 ms | p99 ms | p99.9 ms | max ms | LocalTime p99.9 ms | ")
            .append("LocalTime mean ms | slow ops | lines dropped | lines through the pipe | load |\n")
            .append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        runs.forEach(r -> sb.append(row(r)).append('\n'));
        sb.append("\nMedians by arm (and the ratio to `quiet` of the same version):\n\n")
            .append("| Kafka | arm | p99 ms | p99.9 ms | max ms | LocalTime p99.9 ms | LocalTime mean ms |\n")
            .append("|---|---|---|---|---|---|---|\n");
        for (String version : VERSIONS) {
            List<Run> quiet = of(runs, version, "quiet");
            for (Arm arm : arms) {
                List<Run> these = of(runs, version, arm.name());
                if (these.isEmpty()) {
                    continue;
                }
                sb.append("| ").append(version).append(" | ").append(arm.name());
                for (ToDoubleFunction<Run> m : List.<ToDoubleFunction<Run>>of(r -> r.producer().p99Ms(),
                    r -> r.producer().p999Ms(), r -> r.producer().maxLatencyMs(), Run::localP999, Run::localMean)) {
                    double v = median(these, m);
                    double q = median(quiet, m);
                    sb.append(String.format(Locale.ROOT, " | %.1f (%.2fx)", v, quiet.isEmpty() ? Double.NaN : v / q));
                }
                sb.append(" |\n");
            }
        }
        return sb.toString();
    }

    private static List<Run> of(List<Run> runs, String version, String arm) {
        return runs.stream().filter(r -> r.version().equals(version) && r.arm().equals(arm)).toList();
    }

    private static double median(List<Run> runs, ToDoubleFunction<Run> metric) {
        if (runs.isEmpty()) {
            return Double.NaN;
        }
        double[] v = runs.stream().mapToDouble(metric).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
