package io.stallscope.it.mitigate;

import io.stallscope.it.bench.LoadAverage;
import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.LocalKafkaBroker;
import io.stallscope.it.broker.PrometheusScrape;
import io.stallscope.it.realdisk.FsType;
import io.stallscope.it.realdisk.IoLimits;
import io.stallscope.it.realdisk.RealDisk;
import io.stallscope.it.realdisk.RealDiskRequirement;
import io.stallscope.it.slowdisk.PageCache;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The lock defect of issue 17 as a benchmark (scripts/bench-isr-shrink; results in
 * docs/lab/prefetch-outside-locks.md): two KRaft brokers on loopback, Kafka 3.6.2; node 1 (controller and the
 * partition's leader, with the agent) has its log dir on a loop-device XFS whose reads the cgroup I/O
 * controller throttles to 8 MiB/s; node 2 is the follower. A 128 MiB backlog (RF=2, both in sync) sits in the
 * leader's active segment and is evicted; a steady producer (acks=1, 500 records/s) writes to the partition;
 * a consumer catches up from offset 0 on the leader, and 5 s into it the follower is killed, so the leader
 * shrinks the ISR (Partition.leaderIsrUpdateLock's write lock) in the middle of the cold reads. A warm-up
 * held inside that lock's read side (the old prefetch) would hold the shrink back, and every append queued
 * behind the waiting writer. Arms: "off" (the agent, no mitigation) and "prefetch", alternating for
 * -Dstallscope.bench.rounds (3), order rotated each round; produce p99.9 before and during the catch-up, and
 * over the 10 s from the kill. Output: target/bench/isr-shrink.md.
 */
@EnabledIfSystemProperty(named = "stallscope.bench", matches = "true")
class IsrShrinkBenchIT {
    private static final String TOPIC = "isr";
    private static final String VERSION = System.getProperty("stallscope.bench.kafka", "3.6.2");
    private static final int ROUNDS = Integer.getInteger("stallscope.bench.rounds", 3);
    private static final List<String> ARMS = List.of(System.getProperty("stallscope.bench.arms", "off,prefetch").split(","));
    private static final int BACKLOG_MIB = 128;
    private static final int RATE = 500;
    private static final double READ_MIBPS = 8;
    private static final int KILL_AFTER_SECONDS = 5;

    record Result(double p999Before, double p999During, double p999AfterKill, double shrinkSeconds,
                  boolean shrankDuringCatchUp, double catchUpSeconds, double warmed, double timedOut) {
        double ratio() {
            return p999During / p999Before;
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.MINUTES)
    void produceLatencyWhileTheIsrShrinksDuringACatchUp() throws Exception {
        RealDiskRequirement.assumeAvailable();
        Path dir = Path.of(System.getProperty("stallscope.it.target", "target"), "bench").toAbsolutePath();
        Files.createDirectories(dir);
        Path out = dir.resolve("isr-shrink.md");
        Files.writeString(out, "ISR shrink during a cold catch-up (" + java.time.Instant.now() + ", load "
            + LoadAverage.now() + "): Kafka " + VERSION + ", " + ROUNDS + " rounds of " + ARMS
            + "\n\n| round | arm | p99.9 before ms | p99.9 during ms | during/before | p99.9 10 s from the kill ms"
            + " | ISR shrunk s after the kill | shrink during the catch-up | catch-up s | fetches warmed | timed out |\n"
            + "|---|---|---|---|---|---|---|---|---|---|---|\n");
        List<String[]> rows = new ArrayList<>();
        for (int round = 1; round <= ROUNDS; round++) {
            for (int i = 0; i < ARMS.size(); i++) {
                String arm = ARMS.get((i + round - 1) % ARMS.size());
                Result r = run(arm, dir.resolve("isr-" + round + "-" + arm));
                Files.writeString(out, String.format(Locale.ROOT, "| %d | %s | %.1f | %.1f | %.1f | %.1f | %.1f | %s | %.1f | %.0f | %.0f |%n",
                    round, arm, r.p999Before(), r.p999During(), r.ratio(), r.p999AfterKill(), r.shrinkSeconds(),
                    r.shrankDuringCatchUp() ? "yes" : "no", r.catchUpSeconds(), r.warmed(), r.timedOut()), StandardOpenOption.APPEND);
                rows.add(new String[] {arm, Double.toString(r.ratio()), Double.toString(r.p999AfterKill())});
            }
        }
        StringBuilder medians = new StringBuilder("\n| arm | median during/before | median p99.9 10 s from the kill ms |\n|---|---|---|\n");
        for (String arm : ARMS) {
            medians.append(String.format(Locale.ROOT, "| %s | %.1f | %.1f |%n", arm, median(rows, arm, 1), median(rows, arm, 2)));
        }
        medians.append("\nload at end ").append(LoadAverage.now()).append('\n');
        Files.writeString(out, medians, StandardOpenOption.APPEND);
        System.out.println(Files.readString(out));
    }

    private static double median(List<String[]> rows, String arm, int column) {
        double[] v = rows.stream().filter(r -> r[0].equals(arm)).mapToDouble(r -> Double.parseDouble(r[column])).sorted().toArray();
        return v.length == 0 ? Double.NaN : v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private static Result run(String arm, Path dir) throws Exception {
        Files.createDirectories(dir);
        String options = switch (arm) {
            case "off" -> "";
            case "prefetch" -> "mitigate=prefetch";
            default -> throw new IllegalArgumentException("unknown arm '" + arm + "': off or prefetch");
        };
        Path target = Path.of(System.getProperty("stallscope.it.target", "target")).toAbsolutePath();
        try (RealDisk disk = RealDisk.create(FsType.XFS, 1L << 30, target.resolve("realdisk"))) {
            MitigatedBroker mb = new MitigatedBroker(VERSION, "isr-leader", options,
                b -> b.dataDir(disk.mountPoint().resolve("kafka")).launchWrapper(disk.launchWrapper())
                    // the leader drops a silent follower from the ISR 3 s after its last fetch (30 s by default)
                    .serverProperty("replica.lag.time.max.ms", "3000").heap("1g"));
            try (LocalKafkaBroker leader = new LocalKafkaBroker(mb.spec)) {
                leader.start();
                BrokerSpec followerSpec = BrokerSpec.builder(VERSION).name("isr-follower").nodeId(2)
                    .joinKRaftCluster(leader.quorumVoters(), leader.clusterId()).build();
                try (LocalKafkaBroker follower = new LocalKafkaBroker(followerSpec); Admin admin = KafkaClients.admin(leader)) {
                    follower.start();
                    admin.createTopics(List.of(new NewTopic(TOPIC, Map.of(0, List.of(1, 2)))
                        .configs(Map.of("segment.bytes", Long.toString(1L << 30))))).all().get(30, TimeUnit.SECONDS);
                    KillRecoveryIT.waitFor(() -> isr(admin).size() == 2, Duration.ofSeconds(60), "follower never in sync");
                    KafkaClients.producerPerformance(leader, TOPIC, BACKLOG_MIB * 1024L, 1024, -1,
                        Map.of("batch.size", "262144", "linger.ms", "20"), Duration.ofMinutes(10));
                    KillRecoveryIT.waitFor(() -> isr(admin).size() == 2, Duration.ofSeconds(60), "follower fell behind the backlog");
                    List<Path> logs = segments(leader.dataDir().resolve(TOPIC + "-0"));
                    disk.limit(IoLimits.readMiBps(READ_MIBPS));
                    PageCache.evict(logs);
                    Map<String, Object> config = KafkaClients.producerConfig(leader);
                    config.put(ProducerConfig.ACKS_CONFIG, "1");
                    config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
                    try (LatencyProducer steady = new LatencyProducer(config, TOPIC, RATE)) {
                        TimeUnit.SECONDS.sleep(5); // connection, metadata, first batches: not measured
                        long before = System.nanoTime();
                        TimeUnit.SECONDS.sleep(15);
                        PrometheusScrape atStart = PrometheusScrape.scrape(mb.prometheusPort);
                        long catchUp;
                        long killedAt;
                        long shrunkAt;
                        try (CatchUpProcess consumer = CatchUpProcess.start(leader.bootstrapServers(), TOPIC, 19, dir.resolve("catch-up"))) {
                            consumer.awaitPositioned(Duration.ofMinutes(2));
                            catchUp = System.nanoTime();
                            TimeUnit.SECONDS.sleep(KILL_AFTER_SECONDS);
                            follower.kill();
                            killedAt = System.nanoTime();
                            KillRecoveryIT.waitFor(() -> isr(admin).equals(List.of(1)), Duration.ofSeconds(60), "the ISR did not shrink");
                            shrunkAt = System.nanoTime();
                            consumer.awaitDone(Duration.ofMinutes(10));
                        }
                        long end = System.nanoTime();
                        PrometheusScrape atEnd = PrometheusScrape.scrape(mb.prometheusPort);
                        return new Result(steady.quantileMs(before, catchUp, 0.999), steady.quantileMs(catchUp, end, 0.999),
                            steady.quantileMs(killedAt, Math.min(end, killedAt + 10_000_000_000L), 0.999),
                            (shrunkAt - killedAt) / 1e9, shrunkAt < end, (end - catchUp) / 1e9,
                            atEnd.event("prefetch", "warmed") - atStart.event("prefetch", "warmed"),
                            atEnd.event("prefetch", "timed_out") - atStart.event("prefetch", "timed_out"));
                    }
                }
            }
        }
    }

    /** The partition's ISR as the leader's controller has it; empty until the topic is known. */
    private static List<Integer> isr(Admin admin) throws Exception {
        try {
            return admin.describeTopics(List.of(TOPIC)).allTopicNames().get(10, TimeUnit.SECONDS).get(TOPIC)
                .partitions().get(0).isr().stream().map(n -> n.id()).sorted().toList();
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException) {
                return List.of();
            }
            throw e;
        }
    }

    private static List<Path> segments(Path partitionDir) throws Exception {
        try (Stream<Path> files = Files.list(partitionDir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".log")).toList();
        }
    }
}
