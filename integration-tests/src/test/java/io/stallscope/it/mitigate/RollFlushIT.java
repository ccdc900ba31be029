package io.stallscope.it.mitigate;

import io.stallscope.it.broker.PrometheusScrape;
import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.LocalKafkaBroker;
import io.stallscope.it.slowdisk.ShimCall;
import io.stallscope.it.slowdisk.SlowDisk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * roll-flush on real Kafka 2.8.2 and 3.6.2 brokers (2.8-3.6 fsync the producer-state snapshot inside the roll,
 * on the request handler, under the partition lock). Simulated: a slow disk, every fsync of a
 * .snapshot file delayed by 50 ms by the LD_PRELOAD shim, which also logs the thread that called it.
 * With the mitigation every snapshot fsync runs on the scheduler (the flush-log job), none on a request
 * handler; without it (the control) they run on the request handlers. Nothing produced is lost.
 *
 * <p>The brokers with the mitigation also carry the removed {@code mitigate.segment.flush.delay=20s}, as a broker
 * configured for an earlier agent would: it is ignored (the start-up line says so), and each roll's flush-log job
 * runs when Kafka schedules it, not 20 s later (an earlier agent held it back, and a power cut inside the delay
 * lost acknowledged records behind an offset gap: docs/mitigations.md).
 */
class RollFlushIT {
    private static final String TOPIC = "rolls";
    private static final int RECORDS = 6000;
    private static final Duration FSYNC = Duration.ofMillis(50);
    private static final Duration REMOVED_DELAY = Duration.ofSeconds(20);
    private static final int PRODUCERS = 3;
    /** Under the 50 ms fsync, so a handler queued for the lock during one has a line. */
    private static final String LOCK_WAIT_LINES = "slow.threshold.log_append=20ms";
    private static final Pattern BEHIND_ROLLING_HANDLER = Pattern.compile(" lock_wait_ms=[0-9.]+: behind "
        + "(snapshot_write|snapshot_take) [0-9.]+ ms( so far)? of the same log on request_handler thread "
        + "\"data-plane-kafka-request-handler-[0-9]+\"");

    @ParameterizedTest(name = "Kafka {0}")
    @ValueSource(strings = {"2.8.2", "3.6.2"})
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void snapshotFsyncLeavesTheRequestHandler(String version, @TempDir Path tmp) throws Exception {
        SlowDisk disk = SlowDisk.logTo(tmp.resolve("shim.log")).slowFsync("\\.snapshot$", FSYNC);
        MitigatedBroker mb = new MitigatedBroker(version, "roll-flush",
            "mitigate=roll-flush,mitigate.segment.flush.delay=" + REMOVED_DELAY.toSeconds() + "s", disk);
        try (KafkaBroker broker = new LocalKafkaBroker(mb.spec)) {
            broker.start();
            int rolls = produceWithRolls(broker);
            long produced = System.nanoTime();
            PrometheusScrape metrics = afterScheduledFlushes(mb.prometheusPort, rolls);
            Duration flushedAfter = Duration.ofNanos(System.nanoTime() - produced);
            List<ShimCall> fsyncs = snapshotFsyncs(disk);

            assertThat(startupLine(broker)).contains("roll-flush on")
                .contains("ignored mitigate.segment.flush.delay (agent argument): removed");
            assertThat(flushedAfter).as("every roll's flush-log job ran as Kafka scheduled it, not after the removed delay")
                .isLessThan(REMOVED_DELAY.dividedBy(2));
            // the shim saw who fsynced each snapshot: only the scheduler's threads
            assertThat(fsyncs).hasSizeGreaterThanOrEqualTo(rolls)
                .allSatisfy(c -> assertThat(c.thread()).startsWith("kafka-schedule"));
            // the agent's thread-role data says the same
            assertThat(metrics.ops("snapshot_write", "request_handler")).isGreaterThanOrEqualTo(rolls);
            assertThat(metrics.ops("snapshot_flush", "scheduler")).isGreaterThanOrEqualTo(rolls);
            assertThat(metrics.ops("snapshot_flush", "request_handler")).isZero();
            assertThat(metrics.event("roll-flush", "deferred")).isGreaterThanOrEqualTo(rolls);
            assertThat(metrics.event("roll-flush", "error")).isZero();
            assertThat(metrics.sum("stallscope_op_seconds_max", java.util.Map.of("op", "snapshot_write",
                "role", "request_handler"))).as("no snapshot write waits for the 50 ms fsync").isLessThan(0.045);
            assertThat(KafkaClients.consumeAll(broker, TOPIC, true, Duration.ofSeconds(60))).isEqualTo(RECORDS);
        }
    }

    /**
     * The control, the roll spike itself (KAFKA-9693), on both versions that have it: the request handler that
     * rolls fsyncs the snapshot under the log's lock, and the handlers of the other producers queue for that lock.
     * Their wait is timed (log_append, slow here from 20 ms of it), and their slow lines name the rolling handler's
     * snapshot op as what they waited behind (issue 41).
     */
    @ParameterizedTest(name = "Kafka {0}")
    @ValueSource(strings = {"2.8.2", "3.6.2"})
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void withoutTheMitigationTheRequestHandlerFsyncs(String version, @TempDir Path tmp) throws Exception {
        SlowDisk disk = SlowDisk.logTo(tmp.resolve("shim.log")).slowFsync("\\.snapshot$", FSYNC);
        MitigatedBroker mb = new MitigatedBroker(version, "roll-flush-control", LOCK_WAIT_LINES, disk);
        try (KafkaBroker broker = new LocalKafkaBroker(mb.spec)) {
            broker.start();
            int rolls = produceConcurrentlyWithRolls(broker);
            PrometheusScrape metrics = PrometheusScrape.scrape(mb.prometheusPort);
            assertThat(startupLine(broker)).contains("mitigations off");
            assertThat(snapshotFsyncs(disk)).filteredOn(c -> c.thread().startsWith("data-plane-kafk"))
                .hasSizeGreaterThanOrEqualTo(rolls);
            assertThat(metrics.ops("snapshot_flush", "scheduler")).isZero();
            assertThat(metrics.sum("stallscope_op_seconds_max", java.util.Map.of("op", "snapshot_write",
                "role", "request_handler"))).isGreaterThanOrEqualTo(FSYNC.toMillis() / 1000.0);

            assertThat(metrics.ops("log_append", "request_handler")).as("appends timed as a whole, lock wait included")
                .isPositive();
            List<String> waits = Files.readString(broker.logFile(), StandardCharsets.ISO_8859_1).lines()
                .filter(l -> l.contains("slow op=log_append") && l.contains("role=request_handler")
                    && l.contains("topic=" + TOPIC) && l.contains(" lock_wait_ms="))
                .toList();
            List<String> behindTheRoll = waits.stream().filter(l -> BEHIND_ROLLING_HANDLER.matcher(l).find()).toList();
            System.out.println("Kafka " + version + ": " + rolls + " rolls, " + waits.size() + " slow log_append lines, "
                + behindTheRoll.size() + " behind the rolling handler's snapshot op");
            assertThat(behindTheRoll).as("lock waits named behind the rolling handler, of " + waits).isNotEmpty();
            assertThat(metrics.sum("stallscope_blocked_behind_seconds_total", java.util.Map.of("op", "log_append",
                "role", "request_handler", "behind_role", "request_handler", "scope", "log"))).isPositive();
        }
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void notNeededFrom37(@TempDir Path tmp) throws Exception {
        MitigatedBroker mb = new MitigatedBroker("3.7.2", "roll-flush-37", "mitigate=roll-flush",
            SlowDisk.logTo(tmp.resolve("shim.log")));
        try (KafkaBroker broker = new LocalKafkaBroker(mb.spec)) {
            broker.start();
            int rolls = produceWithRolls(broker);
            PrometheusScrape metrics = afterScheduledFlushes(mb.prometheusPort, rolls);
            assertThat(startupLine(broker)).contains("roll-flush not needed on Kafka 3.7.2");
            assertThat(metrics.event("roll-flush", "deferred")).isZero();
            // Kafka's own flushProducerStateSnapshot, on the scheduler
            assertThat(metrics.ops("snapshot_flush", "scheduler")).isGreaterThanOrEqualTo(rolls);
        }
    }

    /**
     * Scrapes until the scheduler's flush-log jobs for every roll have fsynced the snapshot (or 60 s
     * pass, then the assertions say what is missing): the jobs run after produce returns.
     */
    static PrometheusScrape afterScheduledFlushes(int port, int rolls) throws Exception {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
        PrometheusScrape metrics = PrometheusScrape.scrape(port);
        while (metrics.ops("snapshot_flush", "scheduler") < rolls && System.nanoTime() < deadline) {
            Thread.sleep(200);
            metrics = PrometheusScrape.scrape(port);
        }
        return metrics;
    }

    /** Produces RECORDS of 1 KiB into 1 MiB segments; returns the rolls the agent counted. */
    static int produceWithRolls(KafkaBroker broker) throws Exception {
        KafkaClients.createTopic(broker, TOPIC, 1, KafkaClients.SMALL_SEGMENTS);
        assertThat(KafkaClients.produce(broker, TOPIC, RECORDS, 1024)).isEqualTo(RECORDS);
        return rollsSoFar(broker);
    }

    /**
     * RECORDS over three producers at once, each on its own connection and so its own request handler: while one
     * handler rolls, the others' appends queue for the log's lock. Returns the rolls, as produceWithRolls does.
     */
    static int produceConcurrentlyWithRolls(KafkaBroker broker) throws Exception {
        KafkaClients.createTopic(broker, TOPIC, 1, KafkaClients.SMALL_SEGMENTS);
        ExecutorService pool = Executors.newFixedThreadPool(PRODUCERS);
        try {
            List<Future<Long>> acked = new ArrayList<>();
            for (int i = 0; i < PRODUCERS; i++) {
                acked.add(pool.submit(() -> KafkaClients.produce(broker, TOPIC, RECORDS / PRODUCERS, 1024)));
            }
            for (Future<Long> f : acked) {
                assertThat(f.get(3, TimeUnit.MINUTES)).isEqualTo(RECORDS / PRODUCERS);
            }
        } finally {
            pool.shutdownNow();
        }
        return rollsSoFar(broker);
    }

    private static int rollsSoFar(KafkaBroker broker) throws Exception {
        long segments;
        try (var files = Files.list(broker.dataDir().resolve(TOPIC + "-0"))) {
            segments = files.filter(f -> f.toString().endsWith(".log")).count();
        }
        assertThat(segments).as("rolls happened").isGreaterThanOrEqualTo(4);
        return (int) segments - 1;
    }

    static List<ShimCall> snapshotFsyncs(SlowDisk disk) throws Exception {
        return disk.calls().stream().filter(c -> c.path().endsWith(".snapshot") && c.call().startsWith("f")).toList();
    }

    static String startupLine(KafkaBroker broker) throws Exception {
        return Files.readString(broker.logFile(), StandardCharsets.ISO_8859_1).lines()
            .filter(l -> l.contains("Stallscope ") && l.contains("active ("))
            .findFirst().orElseThrow(() -> new AssertionError("no start-up line in " + broker.logFile()));
    }
}
