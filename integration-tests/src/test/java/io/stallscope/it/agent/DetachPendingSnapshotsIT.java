package io.stallscope.it.agent;

import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.FreePorts;
import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.KafkaJdks;
import io.stallscope.it.broker.LocalKafkaBroker;
import io.stallscope.it.broker.PrometheusScrape;
import io.stallscope.it.slowdisk.ShimCall;
import io.stallscope.it.slowdisk.SlowDisk;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Attach, roll, detach with deferred snapshots, one of them unsyncable, on a real Kafka 3.6.2 broker whose
 * data dir is the test's temporary directory (an ordinary file system, no loop device). The agent is
 * attached at run time with roll-flush and a segment-flush delay longer than the test, so every roll's
 * snapshot is still pending at detach. Simulated: the failing disk under partition 0's snapshots, by the
 * LD_PRELOAD shim (fsync returns EIO without syncing, from the moment the test switches it on; the shim
 * also logs every snapshot fsync). On detach every healthy snapshot is fsynced (the shim saw each),
 * partition 0's failure is one ERROR line per snapshot in the broker's log, and the broker keeps serving.
 */
class DetachPendingSnapshotsIT {
    private static final String TOPIC = "detach";
    private static final int PARTITIONS = 4;
    /** 1.5 MiB per partition into 1 MiB segments: one roll each. */
    private static final int RECORDS_PER_PARTITION = 1536;

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void detachSyncsEveryHealthySnapshotAndReportsEachFailure(@TempDir Path tmp) throws Exception {
        SlowDisk disk = SlowDisk.logTo(tmp.resolve("shim.log")).slowFsync("/" + TOPIC + "-[0-9]+/[0-9]+\\.snapshot$",
            Duration.ZERO).failFsyncOnTrigger("/" + TOPIC + "-0/[0-9]+\\.snapshot$", tmp.resolve("fail-now"));
        BrokerSpec.Builder spec = BrokerSpec.builder("3.6.2").name("detach-pending");
        disk.applyTo(spec);
        try (KafkaBroker broker = new LocalKafkaBroker(spec.build())) {
            broker.start();
            KafkaClients.createTopic(broker, TOPIC, PARTITIONS, KafkaClients.SMALL_SEGMENTS);

            int port = FreePorts.next();
            AgentCommand.Result attached = AgentCommand.run(KafkaJdks.defaultJdk(), "attach",
                Long.toString(broker.pid()), "prometheus=127.0.0.1:" + port, "mitigate=roll-flush",
                "mitigate.segment.flush.delay=5m");
            assertThat(attached.exitCode()).as(attached.output()).isZero();
            assertThat(attached.output()).contains("active (attach) in Kafka 3.6.2");

            produceToEveryPartition(broker, RECORDS_PER_PARTITION);
            Set<Path> snapshots = rolledSnapshots(broker);
            assertThat(snapshots).as("a rolled snapshot in every partition").hasSizeGreaterThanOrEqualTo(PARTITIONS);
            PrometheusScrape before = PrometheusScrape.scrape(port);
            assertThat(before.event("roll-flush", "deferred")).as("every roll's snapshot is pending")
                .isEqualTo(snapshots.size());
            assertThat(fsynced(disk)).as("no snapshot fsynced before the detach").isEmpty();

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
            String log = Files.readString(broker.logFile(), StandardCharsets.ISO_8859_1);
            List<String> failures = log.lines().filter(l -> l.contains("not durable on detach")).toList();
            assertThat(failures).as("one ERROR line per snapshot that could not be synced").hasSize(broken.size())
                .allSatisfy(l -> assertThat(l).contains("ERROR").contains("/" + TOPIC + "-0/"));
            assertThat(log).contains("detached: restored the original code of");

            // the broker still serves, without the agent (partition 0 gets nothing: its disk is failing)
            assertThat(broker.isRunning()).isTrue();
            produceTo(broker, List.of(1, 2, 3), 100);
            assertThat(KafkaClients.consumeAll(broker, TOPIC, true, Duration.ofSeconds(60)))
                .isEqualTo((long) PARTITIONS * RECORDS_PER_PARTITION + 3 * 100);
        }
    }

    private static void produceToEveryPartition(KafkaBroker broker, int perPartition) throws Exception {
        List<Integer> all = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            all.add(p);
        }
        produceTo(broker, all, perPartition);
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
    private static Set<Path> rolledSnapshots(KafkaBroker broker) throws Exception {
        try (Stream<Path> dirs = Files.list(broker.dataDir())) {
            return dirs.filter(d -> d.getFileName().toString().startsWith(TOPIC + "-")).flatMap(d -> {
                try (Stream<Path> files = Files.list(d)) {
                    return files.filter(f -> f.getFileName().toString().matches("0*[1-9][0-9]*\\.snapshot")).toList().stream();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }).map(DetachPendingSnapshotsIT::realPath).collect(Collectors.toSet());
        }
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
