package io.stallscope.it.mitigate;

import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.FreePorts;
import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.KafkaVersion;
import io.stallscope.it.broker.LocalKafkaBroker;
import io.stallscope.it.broker.PrometheusScrape;
import io.stallscope.it.slowdisk.SlowDisk;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeReplicaLogDirsResult.ReplicaLogDirInfo;
import org.apache.kafka.common.TopicPartitionReplica;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import javax.management.ObjectName;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A log-dir move (AlterReplicaLogDirs) right after rolls, with roll-flush, on real 2.8.2 and 3.6.2 brokers with
 * two log.dirs (the test's temporary directory, an ordinary file system, no loop device). Nothing is simulated:
 * the shim only logs the fsyncs of snapshot files. The -future copy rolls while it catches up and its snapshots
 * are deferred; then it is renamed to the current name and the source renamed -delete. Every deferred snapshot
 * is fsynced (at the path it has when its log's flush comes, counted flushed or flushed_renamed), none is
 * dropped as vanished, no log dir goes offline, and every record produced is read back from the new dir.
 */
class LogDirMoveIT {
    private static final String TOPIC = "moved";
    private static final String OFFLINE = "kafka.log:type=LogManager,name=OfflineLogDirectoryCount";
    private static final int RECORDS = 3000;

    @ParameterizedTest(name = "Kafka {0}")
    @ValueSource(strings = {"3.6.2", "2.8.2"})
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aMoveAfterRollsKeepsTheDirsOnlineAndSyncsEveryDeferredSnapshot(String version, @TempDir Path tmp)
        throws Exception {
        SlowDisk disk = SlowDisk.logTo(tmp.resolve("shim.log")).slowFsync("/" + TOPIC + "-0[^/]*/[0-9]+\\.snapshot$",
            Duration.ZERO);
        MitigatedBroker mb = new MitigatedBroker(version, "logdir-move", "mitigate=roll-flush", disk);
        Path dirA = tmp.resolve("logs-a");
        Path dirB = tmp.resolve("logs-b");
        int jmxPort = FreePorts.next();
        BrokerSpec.Builder spec = mb.spec.toBuilder().jvmArgs(BrokerJmx.jvmArgs(jmxPort))
            .serverProperty("log.dirs", dirA + "," + dirB);
        if (!KafkaVersion.of(version).usesZooKeeper()) {
            spec.serverProperty("metadata.log.dir", tmp.resolve("metadata").toString());
        }
        try (KafkaBroker broker = new LocalKafkaBroker(spec.build());
             Admin admin = KafkaClients.admin(broker)) {
            broker.start();
            KafkaClients.createTopic(broker, TOPIC, 1, KafkaClients.SMALL_SEGMENTS);
            assertThat(KafkaClients.produce(broker, TOPIC, RECORDS, 1024)).isEqualTo(RECORDS); // about 3 rolls

            int brokerId = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).iterator().next().id();
            TopicPartitionReplica replica = new TopicPartitionReplica(TOPIC, 0, brokerId);
            Path from = Path.of(replicaDir(admin, replica).getCurrentReplicaLogDir());
            Path to = from.equals(dirA) ? dirB : dirA;
            admin.alterReplicaLogDirs(Map.of(replica, to.toString())).all().get(30, TimeUnit.SECONDS);
            KillRecoveryIT.waitFor(() -> {
                ReplicaLogDirInfo info = replicaDir(admin, replica);
                return to.toString().equals(info.getCurrentReplicaLogDir()) && info.getFutureReplicaLogDir() == null;
            }, Duration.ofSeconds(60), TOPIC + "-0 was not moved to " + to);

            assertThat(KafkaClients.consumeAll(broker, TOPIC, true, Duration.ofSeconds(60)))
                .as("every record produced, served from %s", to).isEqualTo(RECORDS);
            PrometheusScrape metrics = waitUntilAccounted(mb);
            try (BrokerJmx jmx = BrokerJmx.connect(jmxPort)) {
                assertThat(((Number) jmx.connection.getAttribute(new ObjectName(OFFLINE), "Value")).intValue())
                    .as("no log dir went offline").isZero();
            }
            assertThat(replicaDir(admin, replica).getCurrentReplicaLogDir()).isEqualTo(to.toString());
            assertThat(Files.readString(broker.logFile(), StandardCharsets.ISO_8859_1)).doesNotContain("ClosedChannelException");
            // for the record (docs/mitigations.md): what roll-flush counted, the snapshot fsyncs the shim saw
            System.out.println("LogDirMoveIT " + version + ": " + metrics.text().lines()
                .filter(l -> l.startsWith("stallscope_mitigation_events_total")).toList() + "; fsyncs "
                + disk.calls().stream().filter(c -> c.call().startsWith("f")).map(c -> c.call() + " " + c.path()).toList());
            assertThat(metrics.event("roll-flush", "deferred")).as("the rolls' snapshots were deferred").isGreaterThanOrEqualTo(2);
            assertThat(metrics.event("roll-flush", "flushed") + metrics.event("roll-flush", "flushed_renamed"))
                .as("each deferred snapshot fsynced").isEqualTo(metrics.event("roll-flush", "deferred"));
            assertThat(metrics.event("roll-flush", "vanished")).as("none dropped unsynced").isZero();
            assertThat(metrics.event("roll-flush", "io_error")).isZero();
            assertThat(metrics.event("roll-flush", "inline_max_pending")).isZero();
            assertThat(metrics.event("roll-flush", "error")).as("no error of the agent's own").isZero();
        }
    }

    private static ReplicaLogDirInfo replicaDir(Admin admin, TopicPartitionReplica replica) throws Exception {
        return admin.describeReplicaLogDirs(List.of(replica)).all().get(30, TimeUnit.SECONDS).get(replica);
    }

    /** Deferred snapshots not yet synced or failed: the size of the pending set. */
    private static double unaccounted(PrometheusScrape m) {
        return m.event("roll-flush", "deferred") - m.event("roll-flush", "flushed") - m.event("roll-flush", "flushed_renamed")
            - m.event("roll-flush", "vanished") - m.event("roll-flush", "io_error");
    }

    /** Waits (at most 30 s) until every deferred snapshot is accounted for: the pending set is empty. */
    private static PrometheusScrape waitUntilAccounted(MitigatedBroker mb) throws Exception {
        PrometheusScrape[] last = new PrometheusScrape[1];
        KillRecoveryIT.waitFor(() -> {
            last[0] = PrometheusScrape.scrape(mb.prometheusPort);
            return unaccounted(last[0]) == 0;
        }, Duration.ofSeconds(30), "deferred snapshots left pending 30 s after the move");
        return last[0];
    }
}
