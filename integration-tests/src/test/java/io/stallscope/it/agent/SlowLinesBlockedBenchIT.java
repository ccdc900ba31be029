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
import io.stallscope.it.mitigate.CatchUpProcess;
import io.stallscope.it.mitigate.LatencyProducer;
import io.stallscope.it.realdisk.FsType;
import io.stallscope.it.realdisk.IoLimits;
import io.stallscope.it.realdisk.RealDisk;
import io.stallscope.it.slowdisk.PageCache;
import org.apache.kafka.clients.producer.ProducerConfig;
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
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Benchmark, not a CI test (runs only with -Dstallscope.bench=true; scripts/bench-slow-lines; docs/lab/live-chain-safety.md):
 * does a slow-op line whose appender blocks hold up Kafka's threads? The broker's "stallscope" logger also appends
 * to a named pipe read at 256 bytes a second ({@link SlowLineFifo}), so once the pipe is full each line blocks its
 * writer in write(2) for a second or more, as a server.log on a stalled disk does. Two workloads, each on a fresh
 * broker per run:
 * <ul>
 *   <li>{@code roll-storm}: 4 partitions, 1 MiB segments, 3,000 records/s of 1 KiB, acks=all, on the build's own
 *       disk (no throttle): slow lines from request handlers holding the partition lock;</li>
 *   <li>{@code catch-up}: LINE's case ({@code LineScenario}'s defaults): the log dir on a loop-device XFS whose reads
 *       the cgroup I/O controller limits to 8 MiB/s, a 128 MiB backlog in the one partition's active 1 GiB segment,
 *       evicted from the page cache, one network thread, a steady producer (500 records/s, acks=1) while a consumer
 *       reads the backlog from offset 0: slow lines from the network thread's sendfile and from the handler's
 *       write(2) behind it. Needs root ({@link RealDisk#unavailableReason()}); without it the workload is reported as
 *       not run.</li>
 * </ul>
 * Arms, alternated in a rotated order every round:
 * <ul>
 *   <li>{@code quiet}: the agent with slow.threshold=60m, so it writes no slow line;</li>
 *   <li>{@code blocked}: the agent with slow.threshold=200us and slow.log.per.minute=6000, so it writes lines
 *       faster than the pipe takes them;</li>
 *   <li>{@code blocked-old} (with -Dstallscope.bench.old.agent=JAR, e.g. the agent before issue 57): the same
 *       options on that jar, in the first round only: its producer stalls for minutes.</li>
 * </ul>
 * Per run: the producer's latencies (the measured window: 30 s of the storm, or the catch-up), the agent's own
 * records_append p99.9 on request handlers (the handler's time under the partition lock), Kafka's Produce
 * LocalTimeMs (p99.9 of its decaying reservoir, mean over the window), the agent's slow ops (and those on network
 * threads), dropped lines, the lines the pipe took, and the catch-up's length.
 * -Dstallscope.bench.versions (default 3.6.2,4.1.2), -Dstallscope.bench.workloads (roll-storm,catch-up),
 * -Dstallscope.bench.rounds (3), -Dstallscope.bench.seconds (30, the storm's window).
 */
@EnabledIfSystemProperty(named = "stallscope.bench", matches = "true")
class SlowLinesBlockedBenchIT {
    private static final int PIPE_BYTES_PER_SECOND = 256;
    private static final int ROUNDS = Integer.getInteger("stallscope.bench.rounds", 3);
    private static final List<String> VERSIONS = List.of(System.getProperty("stallscope.bench.versions", "3.6.2,4.1.2")
        .split(","));
    private static final List<String> WORKLOADS = List.of(System.getProperty("stallscope.bench.workloads",
        "roll-storm,catch-up").split(","));
    private static final String OLD_AGENT = System.getProperty("stallscope.bench.old.agent", "");
    private static final String QUIET = "slow.threshold=60m";
    private static final String BLOCKING = "slow.threshold=200us,slow.log.per.minute=6000";

    record Arm(String name, Path jar, String options) {
    }

    /** The producer's side of one window, in ms. */
    record Latencies(double recordsPerSec, double p50, double p99, double p999, double max) {
        static Latencies of(ProducerPerfResult r) {
            return new Latencies(r.recordsPerSec(), r.p50Ms(), r.p99Ms(), r.p999Ms(), r.maxLatencyMs());
        }

        static Latencies of(LatencyProducer p, long from, long to) {
            long[] v = p.latencies(from, to);
            return new Latencies(v.length / ((to - from) / 1e9), p.quantileMs(from, to, 0.5), p.quantileMs(from, to, 0.99),
                p.quantileMs(from, to, 0.999), p.quantileMs(from, to, 1));
        }
    }

    /** What the broker's side measured over one window. */
    record BrokerSide(double localP999, double localMean, double appendP999, double slowOps, double networkSlowOps,
                      double dropped, long pipeLines) {
    }

    record Run(String workload, String version, int round, String arm, Latencies producer, BrokerSide broker,
               double catchUpSeconds, String load) {
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.MINUTES)
    void slowLinesWithABlockingAppender() throws Exception {
        List<Arm> arms = new ArrayList<>(List.of(new Arm("quiet", AgentJar.path(), QUIET),
            new Arm("blocked", AgentJar.path(), BLOCKING)));
        if (!OLD_AGENT.isEmpty()) {
            arms.add(new Arm("blocked-old", Path.of(OLD_AGENT).toAbsolutePath(), BLOCKING));
        }
        List<String> notRun = new ArrayList<>();
        List<String> workloads = new ArrayList<>(WORKLOADS);
        if (workloads.contains("catch-up") && RealDisk.unavailableReason().isPresent()) {
            workloads.remove("catch-up");
            notRun.add("catch-up not run: " + RealDisk.unavailableReason().get());
        }
        Path target = Path.of(System.getProperty("stallscope.it.target", "target"));
        Path out = target.resolve("bench").resolve("slow-lines-blocked-" + String.join("_", workloads) + "-"
            + String.join("_", VERSIONS) + ".md");
        Files.createDirectories(out.getParent());
        List<Run> runs = new ArrayList<>();
        for (String workload : workloads) {
            for (String version : VERSIONS) {
                for (int round = 1; round <= ROUNDS; round++) {
                    for (int i = 0; i < arms.size(); i++) {
                        Arm arm = arms.get((i + round - 1) % arms.size()); // rotated: drift hits every arm alike
                        if (arm.name().equals("blocked-old") && round > 1) {
                            continue; // it shows the defect in one round; each of its runs takes minutes
                        }
                        Run run = run(workload, KafkaVersion.of(version), round, arm, target);
                        runs.add(run);
                        System.out.println(row(run));
                        Files.writeString(out, report(runs, arms, workloads, notRun));
                    }
                }
            }
        }
        System.out.println(report(runs, arms, workloads, notRun));
        // what makes the comparison mean anything: the blocked arms wrote lines and the pipe held them back
        for (Run r : runs) {
            if (r.arm().startsWith("blocked")) {
                assertThat(r.broker().slowOps()).as("slow ops in %s", r).isPositive();
                assertThat(r.broker().pipeLines()).as("lines through the pipe in %s", r).isPositive();
                if (r.workload().equals("catch-up")) {
                    assertThat(r.broker().networkSlowOps()).as("slow sendfiles on the network thread in %s", r).isPositive();
                }
            } else {
                assertThat(r.broker().pipeLines()).as("a quiet arm writes no slow line: %s", r).isLessThan(5);
            }
        }
    }

    private static Run run(String workload, KafkaVersion version, int round, Arm arm, Path target) throws Exception {
        Path dir = Files.createTempDirectory(Files.createDirectories(target.resolve("bench-work")), "slow-lines-");
        try (SlowLineFifo fifo = SlowLineFifo.create(dir.resolve("stallscope.fifo"), PIPE_BYTES_PER_SECOND)) {
            Path logConfig = dir.resolve(LoggingConfigs.fileName(version, "broker-fifo"));
            Path work = dir.resolve("broker");
            Files.writeString(logConfig, fifo.logConfig(version, work.resolve("broker.log")));
            int jmxPort = FreePorts.next();
            int promPort = FreePorts.next();
            BrokerSpec.Builder spec = BrokerSpec.builder(version).name("slow-lines-" + arm.name()).workDir(work)
                .javaAgent(arm.jar(), "prometheus=127.0.0.1:" + promPort + "," + arm.options())
                .jvmArgs(BrokerJmx.jvmArgs(jmxPort))
                // after the harness's own: the last -D wins
                .jvmArgs(List.of(LoggingConfigs.systemProperties(version, logConfig)));
            Probe probe = new Probe(fifo, jmxPort, promPort);
            return switch (workload) {
                case "roll-storm" -> RollStorm.run(spec, probe, version, round, arm);
                case "catch-up" -> CatchUp.run(spec, probe, version, round, arm, target, dir);
                default -> throw new IllegalArgumentException("unknown workload " + workload
                    + " (-Dstallscope.bench.workloads: roll-storm, catch-up)");
            };
        }
    }

    /** Reads the broker's side at the start and at the end of a window. */
    private record Probe(SlowLineFifo fifo, int jmxPort, int promPort) {
        Window open() throws Exception {
            BrokerJmx jmx = BrokerJmx.connect(jmxPort);
            return new Window(this, jmx, jmx.produce().get("LocalTimeMs"), PrometheusScrape.scrape(promPort), fifo.lines());
        }
    }

    private record Window(Probe probe, BrokerJmx jmx, BrokerJmx.Reading local0, PrometheusScrape p0, long lines0) {
        BrokerSide close() throws Exception {
            try (jmx) {
                BrokerJmx.Reading local = jmx.produce().get("LocalTimeMs");
                PrometheusScrape p1 = PrometheusScrape.scrape(probe.promPort());
                long lines = probe.fifo().lines() - lines0;
                probe.fifo().drain(); // the stop must not wait for the trickle
                return new BrokerSide(local.p999(), local.meanSince(local0),
                    p1.quantileMsSince(p0, "records_append", "request_handler", 0.999),
                    delta(p0, p1, "stallscope_slow_ops_total", Map.of()),
                    delta(p0, p1, "stallscope_slow_ops_total", Map.of("role", "network")),
                    delta(p0, p1, "stallscope_slow_ops_dropped_total", Map.of()), lines);
            }
        }

        private static double delta(PrometheusScrape a, PrometheusScrape b, String name, Map<String, String> labels) {
            return b.sum(name, labels) - a.sum(name, labels);
        }
    }

    /** The roll storm on the build's own disk. */
    private static final class RollStorm {
        static final String TOPIC = "storm";
        static final int RATE = 3000;
        static final int RECORD_BYTES = 1024;
        static final int SECONDS = Integer.getInteger("stallscope.bench.seconds", 30);
        static final int WARM_UP_SECONDS = 15;

        static Run run(BrokerSpec.Builder spec, Probe probe, KafkaVersion version, int round, Arm arm) throws Exception {
            try (KafkaBroker broker = new LocalKafkaBroker(spec.build())) {
                broker.start();
                KafkaClients.createTopic(broker, TOPIC, 4, KafkaClients.SMALL_SEGMENTS);
                Map<String, String> props = Map.of("linger.ms", "0");
                // warm-up: the JIT settles and, in the blocked arms, the pipe's 64 KiB fill
                KafkaClients.producerPerformance(broker, TOPIC, (long) RATE * WARM_UP_SECONDS, RECORD_BYTES, RATE, props,
                    Duration.ofMinutes(5));
                Window w = probe.open();
                String load = LoadAverage.oneMinute();
                ProducerPerfResult r = KafkaClients.producerPerformance(broker, TOPIC, (long) RATE * SECONDS,
                    RECORD_BYTES, RATE, props, Duration.ofMinutes(10));
                return new Run("roll-storm", version.toString(), round, arm.name(), Latencies.of(r), w.close(), Double.NaN,
                    load);
            }
        }
    }

    /** LINE's catch-up on a loop-device XFS with cold reads throttled (LineScenario's defaults). */
    private static final class CatchUp {
        static final String TOPIC = "line";
        static final long SEGMENT_BYTES = 1L << 30;
        static final int BACKLOG_MIB = 128;
        static final double READ_MIB_PER_SECOND = 8;
        static final int RATE = 500;

        static Run run(BrokerSpec.Builder spec, Probe probe, KafkaVersion version, int round, Arm arm, Path target,
                       Path dir) throws Exception {
            try (RealDisk disk = RealDisk.create(FsType.XFS, 1L << 30, target.resolve("realdisk"))) {
                spec.dataDir(disk.mountPoint().resolve("kafka")).heap("1g").launchWrapper(disk.launchWrapper())
                    .serverProperty("num.network.threads", "1")
                    .serverProperty("log.segment.bytes", Long.toString(SEGMENT_BYTES));
                try (KafkaBroker broker = new LocalKafkaBroker(spec.build())) {
                    broker.start();
                    KafkaClients.createTopic(broker, TOPIC, 1, Map.of("segment.bytes", Long.toString(SEGMENT_BYTES)));
                    // the backlog; in the blocked arms its slow appends also fill the pipe
                    KafkaClients.producerPerformance(broker, TOPIC, BACKLOG_MIB * 1024L, 1024, -1,
                        Map.of("batch.size", "262144", "linger.ms", "20"), Duration.ofMinutes(10));
                    disk.limit(IoLimits.readMiBps(READ_MIB_PER_SECOND));
                    PageCache.evict(segments(broker.dataDir().resolve(TOPIC + "-0")));
                    Map<String, Object> config = KafkaClients.producerConfig(broker);
                    config.put(ProducerConfig.ACKS_CONFIG, "1");
                    config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
                    try (LatencyProducer steady = new LatencyProducer(config, TOPIC, RATE)) {
                        TimeUnit.SECONDS.sleep(5); // connection, metadata, first batches: not measured
                        try (CatchUpProcess consumer = CatchUpProcess.start(broker.bootstrapServers(), TOPIC, 19,
                            dir.resolve("catch-up"))) {
                            consumer.awaitPositioned(Duration.ofMinutes(2));
                            Window w = probe.open();
                            String load = LoadAverage.oneMinute();
                            long from = System.nanoTime();
                            consumer.awaitDone(Duration.ofMinutes(15));
                            long to = System.nanoTime();
                            BrokerSide side = w.close();
                            return new Run("catch-up", version.toString(), round, arm.name(), Latencies.of(steady, from, to),
                                side, (to - from) / 1e9, load);
                        }
                    }
                }
            }
        }

        private static List<Path> segments(Path partitionDir) throws Exception {
            try (Stream<Path> files = Files.list(partitionDir)) {
                return files.filter(f -> f.getFileName().toString().endsWith(".log")).toList();
            }
        }
    }

    private static String row(Run r) {
        Latencies p = r.producer();
        BrokerSide b = r.broker();
        return String.format(Locale.ROOT, "| %s | %s | %d | %s | %.0f | %.1f | %.1f | %.1f | %.0f | %.1f | %.1f | %.2f | %.0f | %.0f | %.0f | %d | %.1f | %s |",
            r.workload(), r.version(), r.round(), r.arm(), p.recordsPerSec(), p.p50(), p.p99(), p.p999(), p.max(),
            b.appendP999(), b.localP999(), b.localMean(), b.slowOps(), b.networkSlowOps(), b.dropped(), b.pipeLines(),
            r.catchUpSeconds(), r.load());
    }

    private static String report(List<Run> runs, List<Arm> arms, List<String> workloads, List<String> notRun) {
        StringBuilder sb = new StringBuilder();
        sb.append("# Slow-op lines with a blocking appender (SlowLinesBlockedBenchIT)\n\n")
            .append("roll-storm: 4 partitions, 1 MiB segments, ").append(RollStorm.RATE).append(" records/s of ")
            .append(RollStorm.RECORD_BYTES).append(" B, acks=all, linger.ms=0; ").append(RollStorm.SECONDS)
            .append(" s measured after a ").append(RollStorm.WARM_UP_SECONDS).append(" s warm-up; the build's own disk.\n")
            .append("catch-up: loop-device XFS, reads limited to ").append(CatchUp.READ_MIB_PER_SECOND).append(" MiB/s, a ")
            .append(CatchUp.BACKLOG_MIB).append(" MiB cold backlog read from offset 0 by a consumer while a producer sends ")
            .append(CatchUp.RATE).append(" records/s (acks=1), one network thread; the window is the catch-up.\n")
            .append("The \"stallscope\" logger also appends to a pipe read at ").append(PIPE_BYTES_PER_SECOND).append(" B/s.\n")
            .append("append p99.9: the agent's records_append on request handlers over the window (bucket bound). ")
            .append("LocalTime: Kafka's Produce request metric (p99.9 of its decaying reservoir; mean over the window).\n");
        notRun.forEach(n -> sb.append("\n").append(n).append('\n'));
        sb.append("\n| workload | Kafka | round | arm | records/s | p50 ms | p99 ms | p99.9 ms | max ms | append p99.9 ms | ")
            .append("LocalTime p99.9 ms | LocalTime mean ms | slow ops | on network threads | lines dropped | ")
            .append("lines through the pipe | catch-up s | load |\n")
            .append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        runs.forEach(r -> sb.append(row(r)).append('\n'));
        sb.append("\nMedians by arm (and the ratio to `quiet` of the same workload and version):\n\n")
            .append("| workload | Kafka | arm | p99 ms | p99.9 ms | max ms | append p99.9 ms | LocalTime p99.9 ms | ")
            .append("LocalTime mean ms | catch-up s |\n")
            .append("|---|---|---|---|---|---|---|---|---|---|\n");
        for (String workload : workloads) {
            for (String version : VERSIONS) {
                List<Run> quiet = of(runs, workload, version, "quiet");
                for (Arm arm : arms) {
                    List<Run> these = of(runs, workload, version, arm.name());
                    if (these.isEmpty()) {
                        continue;
                    }
                    sb.append("| ").append(workload).append(" | ").append(version).append(" | ").append(arm.name());
                    for (ToDoubleFunction<Run> m : List.<ToDoubleFunction<Run>>of(r -> r.producer().p99(),
                        r -> r.producer().p999(), r -> r.producer().max(), r -> r.broker().appendP999(),
                        r -> r.broker().localP999(), r -> r.broker().localMean(), Run::catchUpSeconds)) {
                        double v = median(these, m);
                        double q = median(quiet, m);
                        sb.append(String.format(Locale.ROOT, " | %.1f (%.2fx)", v, quiet.isEmpty() ? Double.NaN : v / q));
                    }
                    sb.append(" |\n");
                }
            }
        }
        return sb.toString();
    }

    private static List<Run> of(List<Run> runs, String workload, String version, String arm) {
        return runs.stream().filter(r -> r.workload().equals(workload) && r.version().equals(version)
            && r.arm().equals(arm)).toList();
    }

    private static double median(List<Run> runs, ToDoubleFunction<Run> metric) {
        if (runs.isEmpty()) {
            return Double.NaN;
        }
        double[] v = runs.stream().mapToDouble(metric).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
