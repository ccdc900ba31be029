package io.stallscope.it.tiered;

import io.stallscope.it.bench.LoadAverage;
import io.stallscope.it.broker.KafkaVersion;
import io.stallscope.it.realdisk.RealDiskRequirement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Benchmark, not a CI test (-Dstallscope.bench=true; scripts/bench-remote-reads; issue 55): {@link RemoteReadScenario}
 * on each Kafka of -Dstallscope.bench.kafka (3.6.2,3.9.2,4.1.2,4.4.0), each arm of -Dstallscope.bench.arms
 * (xfs-throttled,xfs-unthrottled): -Dstallscope.bench.backlog.mib (64) MiB copied to the remote tier, remote reads at
 * -Dstallscope.bench.read.kibps (4096) KiB/s, -Dstallscope.bench.reader.threads (2) reader threads,
 * -Dstallscope.bench.consumers (6) consumers, a window of -Dstallscope.bench.seconds (30). Output:
 * target/bench/remote-reads.md. Checks what issue 55 asks: at least 90% of slow queued reads on a throttled remote
 * tier name a read that held the pool; the unthrottled control has at most a tenth as many slow queued reads; no line
 * of the topic without tiered storage names a remote op;
 * a timestamp lookup in the remote tier runs remote ops on a request handler before 4.0 and none from 4.0 (KIP-1075).
 * With -Dstallscope.bench.record=true each broker records (JFR, default settings, the agent's events) and the analyzer
 * reports on it: on a throttled arm it names the pool's saturation.
 */
@EnabledIfSystemProperty(named = "stallscope.bench", matches = "true")
class RemoteReadBenchIT {
    static final String POOL_FINDING = "remote-reader-pool-saturated";
    static final String HANDLER_FINDING = "request-handler-blocked-on-remote-storage";
    private static final List<String> KAFKAS = List.of(System.getProperty("stallscope.bench.kafka", "3.6.2,3.9.2,4.1.2,4.4.0")
        .split(","));
    private static final List<String> ARMS = List.of(System.getProperty("stallscope.bench.arms", "xfs-throttled,xfs-unthrottled")
        .split(","));
    private static final long BACKLOG_MIB = Long.getLong("stallscope.bench.backlog.mib", 64);
    private static final int READ_KIBPS = Integer.getInteger("stallscope.bench.read.kibps", 4096);
    private static final int READER_THREADS = Integer.getInteger("stallscope.bench.reader.threads", 2);
    private static final int CONSUMERS = Integer.getInteger("stallscope.bench.consumers", 6);
    private static final int SECONDS = Integer.getInteger("stallscope.bench.seconds", 30);
    private static final boolean RECORD = Boolean.getBoolean("stallscope.bench.record");

    @Test
    @Timeout(value = 120, unit = TimeUnit.MINUTES)
    void queuedRemoteReadsNameTheReadsThatHeldThePool() throws Exception {
        RealDiskRequirement.assumeAvailable();
        Path dir = Path.of(System.getProperty("stallscope.it.target", "target"), "bench").toAbsolutePath();
        Files.createDirectories(dir);
        Path out = dir.resolve("remote-reads.md");
        Files.writeString(out, "# Remote reads from a slow remote tier (RemoteReadBenchIT, " + Instant.now() + ", load "
            + LoadAverage.now() + ")\n\n" + ARMS + " on Kafka " + KAFKAS + "; " + BACKLOG_MIB + " MiB in 1 MiB segments over "
            + RemoteReadScenario.PARTITIONS + " partitions in LocalTieredStorage on the loop disk, reads throttled to "
            + READ_KIBPS + " KiB/s (throttled arms), " + READER_THREADS + " reader threads, " + CONSUMERS
            + " consumers from offset 0, a producer at 200 records/s, " + SECONDS + " s window; agent defaults (slow from"
            + " 100 ms), topic.labels=true\n\n" + RemoteReadScenario.Result.header());
        List<RemoteReadScenario.Result> results = new ArrayList<>();
        for (String kafka : KAFKAS) {
            for (String arm : ARMS) {
                RemoteReadScenario.Options options = RemoteReadScenario.Options.of(arm, kafka, BACKLOG_MIB, READ_KIBPS,
                    READER_THREADS, CONSUMERS, SECONDS);
                RemoteReadScenario.Result r = RemoteReadScenario.run(RECORD ? options.recorded() : options,
                    dir.resolve("remote-reads-" + kafka + "-" + arm));
                results.add(r);
                Files.writeString(out, r.row() + "\n", StandardOpenOption.APPEND);
                System.out.println(r.row());
                r.waitLines().stream().limit(2).forEach(l -> System.out.println("  " + l));
                r.waitLines().stream().filter(l -> !l.contains(": behind ")).limit(2)
                    .forEach(l -> System.out.println("  unpaired: " + l));
                r.handlerLines().stream().limit(2).forEach(l -> System.out.println("  handler: " + l));
                if (r.analyzer() != null) {
                    for (String kind : List.of(POOL_FINDING, HANDLER_FINDING)) {
                        String summaries = r.analyzer().findings(kind).stream().map(f -> f.path("summary").asText())
                            .collect(java.util.stream.Collectors.joining("\n  "));
                        Files.writeString(out, "\n" + kafka + " " + arm + ", the analyzer on the broker's recording, "
                            + kind + ": " + r.analyzer().findings(kind).size() + "\n  " + summaries + "\n",
                            StandardOpenOption.APPEND);
                    }
                }
            }
        }
        Files.writeString(out, "\nload at end " + LoadAverage.now() + "\n", StandardOpenOption.APPEND);
        System.out.println(Files.readString(out));
        for (RemoteReadScenario.Result r : results) {
            String what = r.options().kafka() + " " + r.options().arm();
            assertThat(r.controlNamingRemote()).as("%s: lines of the topic without tiered storage naming a remote op", what)
                .isEmpty();
            if (r.options().throttled()) {
                assertThat(r.waitLines()).as("%s: slow queued reads", what).isNotEmpty();
                assertThat(r.paired()).as("%s: slow queued reads naming a read that held the pool, of %d", what,
                    r.waitLines().size()).isGreaterThanOrEqualTo((long) Math.ceil(0.9 * r.waitLines().size()));
                assertThat(r.readsByPartition().values()).as("%s: remote reads on every partition", what)
                    .allSatisfy(n -> assertThat(n).isPositive());
            } else {
                // The control: without the throttle the slow queued reads (nearly) vanish. The few left are real (the
                // first reads' index loads, on a cold cache: measured 119 ms) and are named as any other.
                results.stream().filter(t -> t.options().throttled() && t.options().kafka().equals(r.options().kafka()))
                    .forEach(t -> assertThat(r.waitLines().size()).as("%s: slow queued reads, against %d throttled", what,
                        t.waitLines().size()).isLessThanOrEqualTo(t.waitLines().size() / 10));
            }
            if (r.analyzer() != null && r.options().throttled()) {
                assertThat(r.analyzer().findings(POOL_FINDING)).as("%s: the analyzer names the pool's saturation", what)
                    .isNotEmpty();
            }
            boolean beforeKip1075 = KafkaVersion.of(r.options().kafka()).compareTo(KafkaVersion.of("4.0.0")) < 0;
            if (beforeKip1075) {
                assertThat(r.handlerRemoteOps()).as("%s: remote ops of the lookup on a request handler", what).isPositive();
            } else {
                assertThat(r.handlerRemoteOps()).as("%s: remote ops on a request handler since KIP-1075", what).isZero();
            }
        }
    }
}
