package io.stallscope.it.agent;

import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.FreePorts;
import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.KafkaJdks;
import io.stallscope.it.broker.KafkaVersion;
import io.stallscope.it.broker.LocalKafkaBroker;
import io.stallscope.it.broker.PrometheusScrape;
import io.stallscope.it.slowdisk.ShimCall;
import io.stallscope.it.slowdisk.SlowDisk;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
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
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Attach, roll, detach with deferred snapshots, one partition's unsyncable, on real 2.8.2 and 3.6.2 brokers with
 * two log.dirs (the test's temporary directory, an ordinary file system, no loop device). Stock Kafka fsyncs
 * the snapshot in the roll, and an EIO there takes the log dir offline (maybeHandleIOException ->
 * LogDirFailureChannel); the agent's final sync at detach must do the same, not just log an ERROR line.
 *
 * <p>Simulated, by the LD_PRELOAD shim: the failing disk under partition 0's snapshots (fsync returns EIO
 * without syncing, from the moment the test switches it on), and a scheduler kept busy so that the rolls'
 * snapshots are still pending at detach: with background.threads=1 the shim holds one write of the
 * high-watermark checkpoint (a scheduler job, first run at once, then every 200 ms here; the recovery-point
 * checkpoint's first run waits LogManager's fixed 30 s) for {@link #HOLD}, and the rolls' flush-log jobs queue
 * behind it.
 * The shim also logs every snapshot fsync. On detach every healthy snapshot is fsynced (the shim saw each),
 * partition 0's dir goes offline through Kafka's own handler ("Stopped serving replicas in dir"), each
 * failure is also an ERROR line, and the broker keeps serving the partitions of the other dir.
 */
class DetachPendingSnapshotsIT {
    private static final String TOPIC = "detach";
    private static final int PARTITIONS = 4;
    /** 1.5 MiB per partition into 1 MiB segments: one roll each. */
    private static final int RECORDS_PER_PARTITION = 1536;
    /** How long the held checkpoint write keeps the only scheduler thread. */
    private static final Duration HOLD = Duration.ofSeconds(40);

    @ParameterizedTest(name = "Kafka {0}")
    @ValueSource(strings = {"3.6.2", "2.8.2"})
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aFailedFsyncAtDetachTakesTheDirOfflineAsKafkaWould(String version, @TempDir Path tmp) throws Exception {
        SlowDisk disk = SlowDisk.logTo(tmp.resolve("shim.log"))
            .slowFsync("/" + TOPIC + "-[0-9]+/[0-9]+\\.snapshot$", Duration.ZERO)
            .failFsyncOnTrigger("/" + TOPIC + "-0/[0-9]+\\.snapshot$", tmp.resolve("fail-now"))
            .slowWriteOnTrigger("/replication-offset-checkpoint\\.tmp$", HOLD, tmp.resolve("hold-scheduler"));
        Path dirA = tmp.resolve("logs-a");
        Path dirB = tmp.resolve("logs-b");
        BrokerSpec.Builder spec = BrokerSpec.builder(version).name("detach-pending")
            .serverProperty("log.dirs", dirA + "," + dirB)
            .serverProperty("background.threads", "1")
            .serverProperty("replica.high.watermark.checkpoint.interval.ms", "200");
        if (!KafkaVersion.of(version).usesZooKeeper()) {
            spec.serverProperty("metadata.log.dir", tmp.resolve("metadata").toString());
        }
        disk.applyTo(spec);
        try (KafkaBroker broker = new LocalKafkaBroker(spec.build()); Admin admin = KafkaClients.admin(broker)) {
            broker.start();
            KafkaClients.createTopic(broker, TOPIC, PARTITIONS, KafkaClients.SMALL_SEGMENTS);
            waitFor(() -> partitionsIn(dirA).size() + partitionsIn(dirB).size() == PARTITIONS, Duration.ofSeconds(30),
                "the topic's partition dirs were not created");
            Path failing = partitionDir(List.of(dirA, dirB), 0).getParent();
            Path other = failing.equals(dirA) ? dirB : dirA;
            List<Integer> onOther = partitionsIn(other);
            assertThat(onOther).as("partitions placed in both dirs").isNotEmpty();

            int port = FreePorts.next();
            AgentCommand.Result attached = AgentCommand.run(KafkaJdks.defaultJdk(), "attach",
                Long.toString(broker.pid()), "prometheus=127.0.0.1:" + port, "mitigate=roll-flush");
            assertThat(attached.exitCode()).as(attached.output()).isZero();
            assertThat(attached.output()).contains("active (attach) in Kafka " + version);

            disk.armWrite();
            // ReplicaManager schedules the high-watermark checkpoint once it leads a partition, with no initial delay
            waitFor(disk::writeTaken, Duration.ofSeconds(30), "the scheduler never wrote a high-watermark checkpoint");
            produceTo(broker, all(), RECORDS_PER_PARTITION);
            Set<Path> snapshots = rolledSnapshots(List.of(dirA, dirB));
            assertThat(snapshots).as("a rolled snapshot in every partition").hasSizeGreaterThanOrEqualTo(PARTITIONS);
            PrometheusScrape before = PrometheusScrape.scrape(port);
            assertThat(before.event("roll-flush", "deferred")).as("every roll's snapshot is pending")
                .isEqualTo(snapshots.size());
            assertThat(fsynced(disk)).as("no snapshot fsynced before the detach (the flush-log jobs wait)").isEmpty();

            disk.failFsyncsNow();
            AgentCommand.Result detached = AgentCommand.run(KafkaJdks.defaultJdk(), "detach", Long.toString(broker.pid()));
            assertThat(detached.exitCode()).as(detached.output()).isZero();
            assertThat(detached.output()).contains("detached");

            Set<Path> broken = snapshots.stream().filter(s -> s.getParent().getFileName().toString().equals(TOPIC + "-0"))
                .collect(Collectors.toSet());
            Set<Path> healthy = snapshots.stream().filter(s -> !broken.contains(s)).collect(Collectors.toSet());
            assertThat(broken).isNotEmpty();
            assertThat(fsynced(disk)).as("every healthy snapshot synced on detach, past the failure: %s", disk.calls())
                .containsAll(healthy.stream().map(Path::toString).toList());
            assertThat(fsynced(disk)).as("none of partition 0's").doesNotContainAnyElementsOf(
                broken.stream().map(Path::toString).toList());
            assertThat(disk.calls()).as("the shim failed partition 0's snapshot fsync")
                .anySatisfy(c -> assertThat(c.call()).endsWith("_eio"));

            // Kafka's own handler takes the dir offline, as an EIO of the roll's fsync would without the agent
            String stopped = "Stopped serving replicas in dir " + failing;
            waitFor(() -> log(broker).contains(stopped), Duration.ofSeconds(60),
                "Kafka's log-dir failure handler never took " + failing + " offline");
            Map<String, LogDirDescription> dirs = admin.describeLogDirs(List.of(brokerId(admin))).allDescriptions()
                .get(30, TimeUnit.SECONDS).values().iterator().next();
            assertThat(dirs.get(failing.toString()).error()).as("%s offline", failing).isNotNull();
            assertThat(dirs.get(other.toString()).error()).as("%s online", other).isNull();
            List<String> failures = log(broker).lines().filter(l -> l.contains("not durable on detach")).toList();
            assertThat(failures).as("one ERROR line per snapshot that could not be synced").hasSize(broken.size())
                .allSatisfy(l -> assertThat(l).contains("ERROR").contains("/" + TOPIC + "-0/")
                    .contains("handed to Kafka's log-dir failure handler"));
            assertThat(log(broker)).contains("detached: restored the original code of");

            // the broker still serves the other dir's partitions, without the agent
            assertThat(broker.isRunning()).isTrue();
            produceTo(broker, onOther, 100);
            System.out.println("DetachPendingSnapshotsIT " + version + ": offline " + failing + ", serving " + onOther
                + " from " + other + "; " + failures.size() + " failure line(s)");
            // a graceful stop would wait for the scheduler, which the held checkpoint write keeps for the rest of HOLD
            broker.kill();
        }
    }

    private static List<Integer> all() {
        List<Integer> all = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            all.add(p);
        }
        return all;
    }

    private static Path partitionDir(List<Path> dirs, int partition) {
        for (Path d : dirs) {
            Path p = d.resolve(TOPIC + "-" + partition);
            if (Files.isDirectory(p)) {
                return p;
            }
        }
        throw new IllegalStateException(TOPIC + "-" + partition + " in none of " + dirs);
    }

    private static List<Integer> partitionsIn(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> ds = Files.list(dir)) {
            return ds.map(d -> d.getFileName().toString()).filter(n -> n.matches(TOPIC + "-[0-9]+"))
                .map(n -> Integer.parseInt(n.substring(TOPIC.length() + 1))).sorted().toList();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static int brokerId(Admin admin) throws Exception {
        return admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).iterator().next().id();
    }

    private static String log(KafkaBroker broker) {
        try {
            return Files.readString(broker.logFile(), StandardCharsets.ISO_8859_1);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void waitFor(BooleanSupplier condition, Duration bound, String failure) throws InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as(failure).isLessThan(deadline);
            TimeUnit.MILLISECONDS.sleep(100);
        }
    }

    /** 1 KiB random records, {@code perPartition} to each partition named, acks=all; throws if one fails. */
    private static void produceTo(KafkaBroker broker, List<Integer> partitions, int perPartition) throws Exception {
        Random random = new Random(perPartition);
        List<Future<?>> acks = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(KafkaClients.producerConfig(broker))) {
            for (int i = 0; i < perPartition; i++) {
                for (int p : partitions) {
                    byte[] value = new byte[1024];
                    random.nextBytes(value);
                    acks.add(producer.send(new ProducerRecord<>(TOPIC, p, null, value)));
                }
            }
            producer.flush();
            for (Future<?> ack : acks) {
                ack.get(60, TimeUnit.SECONDS);
            }
        }
    }

    /** The snapshots the rolls wrote (offset above 0), in every partition's dir. */
    private static Set<Path> rolledSnapshots(List<Path> logDirs) throws Exception {
        Set<Path> out = new java.util.HashSet<>();
        for (Path logDir : logDirs) {
            try (Stream<Path> dirs = Files.list(logDir)) {
                for (Path d : dirs.filter(d -> d.getFileName().toString().startsWith(TOPIC + "-")).toList()) {
                    try (Stream<Path> files = Files.list(d)) {
                        files.filter(f -> f.getFileName().toString().matches("0*[1-9][0-9]*\\.snapshot"))
                            .map(DetachPendingSnapshotsIT::realPath).forEach(out::add);
                    }
                }
            }
        }
        return out;
    }

    /** As the shim names it: the path the descriptor points to, symbolic links resolved. */
    private static Path realPath(Path file) {
        try {
            return file.toRealPath();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Paths of snapshot fsyncs the shim let through: it logs every matching fsync, and a failed one again as
     * fsync_eio.
     */
    private static Set<String> fsynced(SlowDisk disk) throws Exception {
        List<ShimCall> calls = disk.calls();
        Set<String> failed = calls.stream().filter(c -> c.call().endsWith("_eio")).map(ShimCall::path)
            .collect(Collectors.toSet());
        return calls.stream().filter(c -> c.call().startsWith("f") && !failed.contains(c.path()))
            .map(ShimCall::path).collect(Collectors.toSet());
    }
}
