package io.stallscope.it.mitigate;

import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.KafkaJdks;
import io.stallscope.it.broker.LocalKafkaBroker;
import io.stallscope.it.slowdisk.PageCache;
import io.stallscope.it.slowdisk.SlowDisk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Experiment, not a CI test (-Dstallscope.bench=true; see docs/mitigations.md): a consumer catching up
 * on a cold backlog (1 GiB over 8 partitions) while a steady producer writes to another topic, with and
 * without prefetch, on one Kafka 3.6.2 broker with one network thread (so the two clients share it, as
 * many clients do on a busy broker). Simulated: a spinning disk for the backlog's segments (the
 * LD_PRELOAD shim): readahead off, and every sendfile/pread that reads pages not in the page cache
 * waits 8 ms per cold extent (a seek) plus the transfer of the cold bytes at 125 MB/s; the backlog is
 * evicted before each run. The agent is detached and attached again with or without mitigate=prefetch
 * between runs, A/B alternating. Reported: the steady producer's p99.9 while the consumer catches up
 * over its p99.9 just before, and the agent's own p99 of transfer_to on the network thread meanwhile.
 */
@EnabledIfSystemProperty(named = "stallscope.bench", matches = "true")
class CatchUpBenchIT {
    private static final String BACKLOG = "backlog";
    private static final String STEADY = "steady";
    private static final int ROUNDS = Integer.getInteger("stallscope.bench.rounds", 3);
    private static final long BACKLOG_RECORDS = Long.getLong("stallscope.bench.backlog.records", 1_048_576L);
    private static final int PARTITIONS = Integer.getInteger("stallscope.bench.partitions", 8);

    @Test
    @Timeout(value = 60, unit = TimeUnit.MINUTES)
    void produceLatencyDuringColdCatchUp() throws Exception {
        Path tmp = Files.createTempDirectory("catchup");
        // no shim log: a line per matching call would be written while measuring
        SlowDisk disk = SlowDisk.logTo(null).spinningDiskReads("/" + BACKLOG + "-[0-9]+/[0-9]+\\.log$");
        MitigatedBroker mb = new MitigatedBroker("3.6.2", "catchup", "", disk);
        BrokerSpec spec = mb.spec.toBuilder().serverProperty("num.network.threads", "1").heap("1g").build();
        Path out = Path.of(System.getProperty("stallscope.it.target", "target"), "bench", "catch-up.md");
        Files.createDirectories(out.getParent());
        Files.writeString(out, "uptime at start: " + Uptime.now() + "\n\n| round | prefetch | p99.9 before ms | p99.9 during ms"
            + " | during/before | catch-up s | warmed MiB | network transfer_to p99 ms (count) |\n|---|---|---|---|---|---|---|---|\n");
        Map<Boolean, List<double[]>> results = new HashMap<>();
        try (KafkaBroker broker = new LocalKafkaBroker(spec)) {
            broker.start();
            KafkaClients.createTopic(broker, BACKLOG, PARTITIONS, Map.of("segment.bytes", Integer.toString(64 << 20)));
            KafkaClients.createTopic(broker, STEADY, 1, Map.of());
            KafkaClients.producerPerformance(broker, BACKLOG, BACKLOG_RECORDS, 1024, -1,
                Map.of("batch.size", "262144", "linger.ms", "20"), Duration.ofMinutes(15));
            for (int round = 1; round <= ROUNDS; round++) {
                List<Boolean> order = round % 2 == 1 ? List.of(false, true) : List.of(true, false);
                for (boolean prefetch : order) {
                    double[] r = run(broker, mb.prometheusPort, prefetch);
                    results.computeIfAbsent(prefetch, k -> new ArrayList<>()).add(r);
                    Files.writeString(out, String.format("| %d | %s | %.1f | %.1f | %.1f | %.1f | %.0f | %.0f (%.0f) |%n", round,
                        prefetch ? "on" : "off", r[0], r[1], r[1] / r[0], r[2], r[3], r[4], r[5]), StandardOpenOption.APPEND);
                }
            }
        }
        StringBuilder medians = new StringBuilder("\n| prefetch | median p99.9 before ms | median p99.9 during ms"
            + " | median during/before | median network transfer_to p99 ms |\n|---|---|---|---|---|\n");
        for (boolean prefetch : List.of(false, true)) {
            List<double[]> rs = results.get(prefetch);
            medians.append(String.format("| %s | %.1f | %.1f | %.1f | %.0f |%n", prefetch ? "on" : "off",
                median(rs, 0), median(rs, 1), median(rs.stream().map(r -> new double[] {r[1] / r[0]}).toList(), 0),
                median(rs, 4)));
        }
        medians.append("\nuptime at end: ").append(Uptime.now()).append('\n');
        Files.writeString(out, medians, StandardOpenOption.APPEND);
        System.out.println(Files.readString(out));
    }

    /** Returns {p99.9 before, p99.9 during, catch-up seconds, MiB warmed, network transfer_to p99 ms, count}. */
    private static double[] run(KafkaBroker broker, int port, boolean prefetch) throws Exception {
        agent(broker, "detach", Long.toString(broker.pid()));
        agent(broker, "attach", Long.toString(broker.pid()), "prometheus=127.0.0.1:" + port + (prefetch ? ",mitigate=prefetch" : ""));
        PageCache.evict(backlogSegments(broker));
        try (LatencyProducer steady = new LatencyProducer(KafkaClients.producerConfig(broker), STEADY, 500)) {
            long before = System.nanoTime();
            Thread.sleep(15_000);
            Scrape atStart = Scrape.of(port);
            long catchUpStart = System.nanoTime();
            Map<String, Object> c = new HashMap<>(KafkaClients.consumerConfig(broker));
            long n = KafkaClients.consumeAll(c, BACKLOG, true, Duration.ofMinutes(10));
            long catchUpEnd = System.nanoTime();
            assertThat(n).isEqualTo(BACKLOG_RECORDS);
            Scrape atEnd = Scrape.of(port);
            double warmed = (atEnd.sum("stallscope_prefetch_bytes_total", Map.of())
                - atStart.sum("stallscope_prefetch_bytes_total", Map.of())) / (1 << 20);
            return new double[] {steady.quantileMs(before, catchUpStart, 0.999), steady.quantileMs(catchUpStart, catchUpEnd, 0.999),
                (catchUpEnd - catchUpStart) / 1e9, warmed, atEnd.quantileMsSince(atStart, "transfer_to", "network", 0.99),
                atEnd.countSince(atStart, "transfer_to", "network")};
        }
    }

    private static void agent(KafkaBroker broker, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(KafkaJdks.defaultJdk().resolve("bin/java").toString(), "-jar",
            MitigatedBroker.agentJar().toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(String.join(" ", cmd) + "\n" + output).isZero();
    }

    private static List<Path> backlogSegments(KafkaBroker broker) throws Exception {
        List<Path> out = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            try (Stream<Path> files = Files.list(broker.dataDir().resolve(BACKLOG + "-" + p))) {
                files.filter(f -> f.getFileName().toString().endsWith(".log")).forEach(out::add);
            }
        }
        return out;
    }

    private static double median(List<double[]> rs, int i) {
        double[] v = rs.stream().mapToDouble(r -> r[i]).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
