package io.stallscope.it.mitigate;

import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.FreePorts;
import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.KafkaVersion;
import io.stallscope.it.broker.LocalKafkaBroker;
import io.stallscope.it.broker.PrometheusScrape;
import io.stallscope.it.slowdisk.SlowDisk;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.provider.ValueSource;

import javax.management.ObjectName;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An I/O error on the producer-state snapshot's fsync, on real Kafka 2.8.2 and 3.6.2 brokers, with
 * roll-flush (the fsync deferred to the flush-log job) and without it (Kafka's fsync in the roll). Either
 * way the error must go through Kafka's own handler: the log dir goes offline after the first roll
 * (OfflineLogDirectoryCount 1, read over JMX) and stays offline, and Kafka's log names the partition and the
 * disk's error. (An offline dir's recovery point is never checkpointed again, so the checkpoint file cannot show
 * whether the recovery point passed the snapshot; PendingSnapshotsTest and PowerLossIT check that.) Simulated: the failing disk, by the LD_PRELOAD shim, which makes every
 * fsync of the topic's .snapshot files return EIO from the moment the test switches it on. Two log.dirs
 * (and, on KRaft, the metadata log in a third), so that one dir going offline does not halt the broker.
 */
class SnapshotFsyncErrorIT {
    private static final String TOPIC = "eio";
    private static final String OFFLINE = "kafka.log:type=LogManager,name=OfflineLogDirectoryCount";

    @ParameterizedTest(name = "Kafka {0}")
    @ValueSource(strings = {"2.8.2", "3.6.2"})
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void withRollFlushTheErrorTakesTheLogDirOfflineThroughKafkasHandler(String version, @TempDir Path tmp)
        throws Exception {
        check(version, "mitigate=roll-flush", tmp);
    }

    /**
     * The same without the mitigation (Kafka's own fsync in the roll): the behaviour the one above must
     * match. Outside CI's budget (about a minute each on 2 cores): -Dstallscope.faults.controls=true.
     */
    @ParameterizedTest(name = "Kafka {0}")
    @ValueSource(strings = {"2.8.2", "3.6.2"})
    @EnabledIfSystemProperty(named = "stallscope.faults.controls", matches = "true")
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void withoutTheMitigationTheSame(String version, @TempDir Path tmp) throws Exception {
        check(version, "", tmp);
    }

    private static void check(String version, String agentOptions, Path tmp) throws Exception {
        SlowDisk disk = SlowDisk.logTo(tmp.resolve("shim.log"))
            .failFsyncOnTrigger("/" + TOPIC + "-0/[0-9]+\\.snapshot$", tmp.resolve("fail-now"));
        MitigatedBroker mb = new MitigatedBroker(version, "eio-" + (agentOptions.isEmpty() ? "off" : "rollflush"),
            agentOptions, disk);
        Path dirA = tmp.resolve("logs-a");
        Path dirB = tmp.resolve("logs-b");
        int jmxPort = FreePorts.next();
        BrokerSpec.Builder spec = mb.spec.toBuilder().jvmArgs(BrokerJmx.jvmArgs(jmxPort))
            .serverProperty("log.dirs", dirA + "," + dirB)
            // checkpoint every second: a recovery point that moved would show in the file at once
            .serverProperty("log.flush.offset.checkpoint.interval.ms", "1000");
        if (!KafkaVersion.of(version).usesZooKeeper()) {
            spec.serverProperty("metadata.log.dir", tmp.resolve("metadata").toString());
        }
        try (KafkaBroker broker = new LocalKafkaBroker(spec.build());) {
            broker.start();
            KafkaClients.createTopic(broker, TOPIC, 1, KafkaClients.SMALL_SEGMENTS);
            disk.failFsyncsNow();
            produceUntilARoll(broker);

            try (BrokerJmx jmx = BrokerJmx.connect(jmxPort)) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                int offline = offline(jmx);
                while (offline == 0 && System.nanoTime() < deadline) {
                    Thread.sleep(200);
                    offline = offline(jmx);
                }
                assertThat(offline).as("the log dir holding %s-0 is offline, as without the agent", TOPIC)
                    .isEqualTo(1);
                Thread.sleep(3000); // three checkpoint intervals
                assertThat(offline(jmx)).as("and stays offline").isEqualTo(1);
            }
            // Kafka's LogDirFailureChannel logs the failed operation's message (naming the partition) with the cause
            String log = Files.readString(broker.logFile(), java.nio.charset.StandardCharsets.ISO_8859_1);
            assertThat(log.lines().filter(l -> l.contains("ERROR") && l.contains(TOPIC + "-0")).toList())
                .as("Kafka's error line for the partition's failed operation").isNotEmpty();
            assertThat(log).as("the disk's error, as the cause").contains("Input/output error");
            assertThat(disk.calls()).as("the shim failed the snapshot's fsync")
                .anySatisfy(c -> assertThat(c.call()).endsWith("_eio"));
            if (!agentOptions.isEmpty()) {
                PrometheusScrape metrics = PrometheusScrape.scrape(mb.prometheusPort);
                assertThat(metrics.event("roll-flush", "deferred")).isGreaterThanOrEqualTo(1);
                assertThat(metrics.event("roll-flush", "io_error")).isGreaterThanOrEqualTo(1);
                assertThat(metrics.event("roll-flush", "error")).as("no error of the agent's own").isZero();
            }
        }
    }

    /** 1.5 MiB into 1 MiB segments: one roll. Sends may fail once the dir is offline; that is expected. */
    private static void produceUntilARoll(KafkaBroker broker) {
        Map<String, Object> config = KafkaClients.producerConfig(broker);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 8_000);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        try {
            KafkaClients.produce(config, TOPIC, 1536, 1024);
        } catch (IllegalStateException expected) {
            // the partition went offline under the producer
        }
    }

    private static int offline(BrokerJmx jmx) throws Exception {
        return ((Number) jmx.connection.getAttribute(new ObjectName(OFFLINE), "Value")).intValue();
    }
}
