package io.stallscope.it.mitigate;

import io.stallscope.it.agent.AgentJar;
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
import org.apache.kafka.clients.admin.DescribeReplicaLogDirsResult.ReplicaLogDirInfo;
import org.apache.kafka.common.TopicPartitionReplica;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import javax.management.ObjectName;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A log-dir move (AlterReplicaLogDirs) right after rolls, with roll-flush, on real 2.8.2 and 3.6.2 brokers with
 * two log.dirs (the test's temporary directory, an ordinary file system, no loop device). Nothing is simulated:
 * the shim only logs the fsyncs of snapshot files. The -future copy rolls while it catches up and its snapshots
 * are deferred; then it is renamed to the current name and the source renamed -delete. Every deferred snapshot
 * is fsynced (at the path it has when its log's flush comes, counted flushed or flushed_renamed), none is
 * dropped as vanished, no log dir goes offline, and every record produced is read back from the new dir.
 *
 * <p>{@link #aBarrierInsideTheRenameWindowSyncsTheSnapshotAtItsNewPath} places a barrier inside Kafka's renameDir
 * window (issue 39, finding 3): the -future dir already moved to its current name, dir() not yet updated.
 */
class LogDirMoveIT {
    private static final String TOPIC = "moved";
    private static final String OFFLINE = "kafka.log:type=LogManager,name=OfflineLogDirectoryCount";
    private static final int RECORDS = 3000;
    /** The topic whose flush-log job keeps the scheduler busy until the rename (the rename window test). */
    private static final String BLOCKER = "blocker";
    /** How long the rename's window is widened: renameDir sleeps that long between the move and dir(). */
    private static final Duration WINDOW = Duration.ofSeconds(3);
    /** ... with a detach as the barrier: time for the detach command's JVM to start and attach. */
    private static final Duration DETACH_WINDOW = Duration.ofSeconds(10);

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

    /**
     * Issue 39, finding 3, on a real broker: Kafka's renameDir (2.8.2 Log, 3.6.2 LocalLog, under the log's lock)
     * moves the dir (rename(2)), on 3.x fsyncs the parent, and only then updates dir(). A roll-flush barrier
     * that reads dir() in between looks for its snapshot under the old -future name and gets
     * NoSuchFileException; before c4c5661 it counted the snapshot "vanished" and dropped it unsynced.
     *
     * <p>How the barrier is put inside the window, with the shim only (Kafka and the agent unchanged):
     * <ul>
     * <li>background.threads=1: Kafka's flush-log jobs (one per roll) run one after another on one thread;</li>
     * <li>another topic rolls just before the move, and its flush-log job's segment fsync waits until the
     *     -future dir is renamed to its current name: every flush-log job of the -future log (J1 first, with the
     *     first roll's deferred snapshot) is queued behind it and starts only once the dir has moved. That job
     *     holds no lock of the moved log (a held job of the moved log itself would not do: its recovery point is
     *     marked under the log's lock, which renameDir holds, so the next job could never start in the window);</li>
     * <li>the thread that renamed sleeps 3 s after rename(2) returns, before Kafka goes on to (3.x) the parent
     *     fsync and the dir() update: the window Kafka has anyway, widened.</li>
     * </ul>
     * The shim logs, in order, "rename" (the dir just moved), an "open_enoent" of a snapshot under the old
     * -future name (a barrier that read the stale dir()), "rename_end" (Kafka's renameDir resumes): the window
     * was hit. Then that snapshot must be fsynced at its new path, and the agent's counters must show every
     * deferred snapshot fsynced and none dropped. Control ({@code -Dstallscope.logdirmove.expectDropped=true}
     * with {@code -Dstallscope.agent.jar} an agent built before c4c5661): the same window, hit the same way,
     * drops the snapshot ("vanished" >= 1, never fsynced).
     *
     * <p>Barrier "detach": the same window, with the agent detached inside it while the moved log's flush-log jobs
     * are still queued, so its final sync (on the attach thread) meets the -future log's pending snapshots under
     * their old name; it must fsync each at its new path (same thread, after the window), log no "not durable on
     * detach", and leave every dir online. The detach reaches the window on 2.8.2 too.
     *
     * <p>By default (CI) one case runs, 3.6.2 flush-log: the barrier Kafka itself sends into the window, with the
     * agent's counters; {@code -Dstallscope.logdirmove.allBarriers=true} runs all four (detach on both versions,
     * 2.8.2 flush-log too; 2026-11-27 21:43 UTC: 4 of 4 passed, 45-63 s each).
     *
     * <p>On 2.8.2 the same arrangement shows that a flush-log barrier cannot land in the window: 2.8's Log.flush
     * reads its segments (logSegments(from, to)) under the log's lock before the first segment flush, where the
     * barrier runs, and renameDir holds that lock from the move to the dir() update. The queued job waits, then
     * syncs the snapshots at their new path: asserted as such (no miss inside the window, synced after it).
     */
    @ParameterizedTest(name = "Kafka {0}, barrier: {1}")
    @CsvSource({"3.6.2,flush-log", "3.6.2,detach", "2.8.2,flush-log", "2.8.2,detach"})
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void aBarrierInsideTheRenameWindowSyncsTheSnapshotAtItsNewPath(String version, String barrier, @TempDir Path tmp)
        throws Exception {
        boolean detach = barrier.equals("detach");
        boolean expectDropped = Boolean.getBoolean("stallscope.logdirmove.expectDropped");
        // one case by default (each is 35-75 s, mostly the broker's start on a loaded machine): 3.6.2's flush-log
        // barrier, with the agent's counters
        assumeTrue(Boolean.getBoolean("stallscope.logdirmove.allBarriers") || expectDropped
                || (!detach && !flushTakesTheLogLock(version)),
            "one case by default (3.6.2 flush-log); -Dstallscope.logdirmove.allBarriers=true runs all four");
        assumeFalse(expectDropped && (detach || flushTakesTheLogLock(version)),
            "the control is the flush-log barrier on 3.x (the one in the window with the agent before c4c5661)");
        String partitionDir = "/" + TOPIC + "-0";
        SlowDisk disk = SlowDisk.logTo(tmp.resolve("shim.log"))
            // logged, not slowed: the snapshots' fsyncs and the log dirs' own (3.x's parent fsync in renameDir)
            .slowFsync("(" + partitionDir + "[^/]*/[0-9]+\\.snapshot|/logs-[ab])$", Duration.ZERO)
            .slowRename(partitionDir + "$", detach ? DETACH_WINDOW : WINDOW)
            .gateFsyncUntilRename("/" + BLOCKER + "-0/[0-9]+\\.log$", Duration.ofSeconds(30))
            .logMissingOpens(partitionDir + "[^/]*/[0-9]+\\.snapshot$");
        MitigatedBroker mb = new MitigatedBroker(version, "logdir-rename-window", "mitigate=roll-flush", disk);
        Path dirA = tmp.resolve("logs-a");
        Path dirB = tmp.resolve("logs-b");
        int jmxPort = FreePorts.next();
        BrokerSpec.Builder spec = mb.spec.toBuilder().jvmArgs(BrokerJmx.jvmArgs(jmxPort))
            .serverProperty("log.dirs", dirA + "," + dirB)
            .serverProperty("background.threads", "1");
        if (!KafkaVersion.of(version).usesZooKeeper()) {
            spec.serverProperty("metadata.log.dir", tmp.resolve("metadata").toString());
        }
        long started = System.nanoTime();
        try (KafkaBroker broker = new LocalKafkaBroker(spec.build());
             Admin admin = KafkaClients.admin(broker)) {
            broker.start();
            KafkaClients.createTopic(broker, TOPIC, 1, KafkaClients.SMALL_SEGMENTS);
            assertThat(KafkaClients.produce(broker, TOPIC, RECORDS, 1024)).isEqualTo(RECORDS); // about 3 rolls

            int brokerId = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).iterator().next().id();
            TopicPartitionReplica replica = new TopicPartitionReplica(TOPIC, 0, brokerId);
            Path from = Path.of(replicaDir(admin, replica).getCurrentReplicaLogDir());
            Path to = from.equals(dirA) ? dirB : dirA;
            // one roll of another topic: its flush-log job takes the scheduler's one thread until the rename
            KafkaClients.createTopic(broker, BLOCKER, 1, KafkaClients.SMALL_SEGMENTS);
            assertThat(KafkaClients.produce(broker, BLOCKER, 1100, 1024)).isEqualTo(1100);
            KillRecoveryIT.waitFor(() -> disk.calls().stream().anyMatch(c -> c.call().equals("gate_hold")),
                Duration.ofSeconds(30), BLOCKER + "'s flush-log job did not reach its segment fsync");
            admin.alterReplicaLogDirs(Map.of(replica, to.toString())).all().get(30, TimeUnit.SECONDS);
            String detached = "";
            if (detach) {
                // the moved log's flush-log jobs are still queued behind the blocker's: its deferred snapshots
                // are pending when the detach's final sync runs, inside the window
                KillRecoveryIT.waitFor(() -> disk.calls().stream().anyMatch(c -> c.call().equals("rename")),
                    Duration.ofSeconds(30), "the -future dir was never renamed");
                detached = agentCommand("detach", Long.toString(broker.pid()));
                assertThat(detached).contains("detached");
            }
            KillRecoveryIT.waitFor(() -> {
                ReplicaLogDirInfo info = replicaDir(admin, replica);
                return to.toString().equals(info.getCurrentReplicaLogDir()) && info.getFutureReplicaLogDir() == null;
            }, Duration.ofSeconds(60), TOPIC + "-0 was not moved to " + to);

            assertThat(KafkaClients.consumeAll(broker, TOPIC, true, Duration.ofSeconds(60)))
                .as("every record produced, served from %s", to).isEqualTo(RECORDS);
            PrometheusScrape metrics = detach ? null : waitUntilAccounted(mb); // a detached agent serves none
            List<ShimCall> calls = disk.calls();
            System.out.println("LogDirMoveIT rename window " + version + ", " + barrier + (expectDropped ? " (control)" : "")
                + ": " + (detach ? detached.strip() : metrics.text().lines()
                    .filter(l -> l.startsWith("stallscope_mitigation_events_total")).toList())
                + "; shim " + calls.stream().map(c -> c.call() + " " + c.thread() + " " + c.path()).toList()
                + "; " + Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms");

            // the window was reached: the -future dir renamed once to the current name, the gated segment fsync
            // released by that rename (not by its time-out)
            String current = to.resolve(TOPIC + "-0").toString();
            int renamed = indexOf(calls, "rename", current);
            int resumed = indexOf(calls, "rename_end", current);
            assertThat(renamed).as("the -future dir renamed to %s, in the shim's log", current).isNotNegative();
            assertThat(resumed).as("renameDir resumed after the window").isGreaterThan(renamed);
            assertThat(calls).as("%s's flush-log job held until the rename, not timed out", BLOCKER)
                .anyMatch(c -> c.call().equals("gate")).noneMatch(c -> c.call().equals("gate_timeout"));
            // ... and a barrier inside it: a snapshot looked for under the old -future name between the two
            List<ShimCall> missed = new ArrayList<>();
            for (ShimCall c : calls.subList(renamed + 1, resumed)) {
                boolean byTheBarrier = detach != c.thread().startsWith("kafka-schedul"); // the detach: the attach thread
                if (c.call().equals("open_enoent") && c.path().contains("-future/") && byTheBarrier) {
                    missed.add(c);
                }
            }
            List<ShimCall> after = calls.subList(resumed + 1, calls.size());
            if (detach) {
                assertThat(missed).as("the detach's final sync looked for a pending snapshot under the old -future"
                    + " name inside the window (rename ... rename_end); shim log: %s", calls).isNotEmpty();
            } else if (flushTakesTheLogLock(version)) {
                // 2.8.2: Log.flush reads its segments through logSegments(from, to), under the log's lock, before
                // the first segment flush where the barrier runs; renameDir holds that lock through the window,
                // so the queued flush-log job waits and its barrier reads the updated dir(): never in the window
                assertThat(missed).as("2.8.2: no flush barrier inside the window; shim log: %s", calls).isEmpty();
                assertThat(after).as("2.8.2: the -future log's deferred snapshots fsynced at %s after the window", current)
                    .anyMatch(c -> c.call().startsWith("f") && c.path().startsWith(current + "/")
                        && c.path().endsWith(".snapshot") && c.thread().startsWith("kafka-schedul"));
            } else {
                assertThat(missed).as("a barrier looked for a pending snapshot under the old -future name inside"
                    + " the window (rename ... rename_end); shim log: %s", calls).isNotEmpty();
            }
            for (ShimCall m : missed) {
                String name = Path.of(m.path()).getFileName().toString();
                String atNewPath = to.resolve(TOPIC + "-0").resolve(name).toString();
                // by the barrier that missed it (same thread): it waited for the rename, then found the file
                boolean synced = after.stream().anyMatch(c -> c.call().startsWith("f") && c.path().equals(atNewPath)
                    && c.tid() == m.tid());
                assertThat(synced).as("%s, missed inside the window by %s, fsynced at %s afterwards by it", name,
                    m.thread(), atNewPath).isEqualTo(!expectDropped);
            }
            if (expectDropped) {
                assertThat(missed).as("control: the window hit").isNotEmpty();
                assertThat(metrics.event("roll-flush", "vanished")).as("control: the snapshot dropped unsynced")
                    .isGreaterThanOrEqualTo(missed.size());
                return;
            }
            try (BrokerJmx jmx = BrokerJmx.connect(jmxPort)) {
                assertThat(((Number) jmx.connection.getAttribute(new ObjectName(OFFLINE), "Value")).intValue())
                    .as("no log dir went offline").isZero();
            }
            assertThat(Files.readString(broker.logFile(), StandardCharsets.ISO_8859_1)).doesNotContain("ClosedChannelException")
                .doesNotContain("KafkaStorageException").doesNotContain("not durable on detach");
            if (detach) {
                return;
            }
            assertThat(metrics.event("roll-flush", "vanished")).as("none dropped unsynced").isZero();
            assertThat(metrics.event("roll-flush", "flushed_renamed")).as("synced at the new path")
                .isGreaterThanOrEqualTo(Math.max(1, missed.size()));
            assertThat(metrics.event("roll-flush", "flushed") + metrics.event("roll-flush", "flushed_renamed"))
                .as("each deferred snapshot fsynced").isEqualTo(metrics.event("roll-flush", "deferred"));
            assertThat(metrics.event("roll-flush", "io_error")).isZero();
            assertThat(metrics.event("roll-flush", "inline_max_pending")).isZero();
            assertThat(metrics.event("roll-flush", "error")).as("no error of the agent's own").isZero();
        }
    }

    /** Runs {@code java -jar stallscope-agent.jar ...} as an operator would; returns its output. */
    private static String agentCommand(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(KafkaJdks.defaultJdk().resolve("bin/java").toString(), "-jar",
            AgentJar.path().toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(String.join(" ", cmd) + "\n" + output).isZero();
        return output;
    }

    /** 2.8's Log.flush takes the log's lock (logSegments) before its first segment flush; 3.x's LocalLog.flush does not. */
    private static boolean flushTakesTheLogLock(String version) {
        return version.startsWith("2.");
    }

    /** The first call of that name on that path in the shim's log, or -1. */
    private static int indexOf(List<ShimCall> calls, String call, String path) {
        for (int i = 0; i < calls.size(); i++) {
            if (calls.get(i).call().equals(call) && calls.get(i).path().equals(path)) {
                return i;
            }
        }
        return -1;
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
