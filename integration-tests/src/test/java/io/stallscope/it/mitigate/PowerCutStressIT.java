package io.stallscope.it.mitigate;

import io.stallscope.it.agent.AgentJar;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.KafkaJdks;
import io.stallscope.it.broker.LocalKafkaBroker;
import io.stallscope.it.broker.PrometheusScrape;
import io.stallscope.it.realdisk.FsType;
import io.stallscope.it.realdisk.IoLimits;
import io.stallscope.it.realdisk.PowerCutDisk;
import io.stallscope.it.realdisk.RealDisk;
import io.stallscope.it.realdisk.RealDiskRequirement;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Kafka's own power-cut hole (issue 53), made likely, and the agent's detection and repair judged on the same cut.
 *
 * <p>The stress: a fresh 3-broker cluster per cut (RF=3, min.insync.replicas=2, idempotent acks=all numbered
 * records, 2,000 records/s of 1 KiB over 12 partitions with 1 MiB segments: a roll on node 3 about every 0.5 s).
 * Node 3's log dir is a loop-device XFS whose writes the kernel's cgroup I/O controller limits to 4 MiB/s
 * ({@code blkio.throttle.write_bps_device}), so a rolled segment's fsync by the asynchronous flush-log job waits
 * hundreds of ms, while any other fsync on the file system (a producer-state snapshot, a checkpoint, another
 * roll) commits the journal with the new segment's name. After 8 s of production the test waits for the next
 * roll on node 3 (a new .log file, inotify), then a random 0-150 ms (3.6.2 and 4.1.2 had holes up to 118 ms after a roll, none from 238 ms on), then cuts its power (a reflink copy of the
 * device: what reached the disk, {@link PowerCutDisk}) and kills it.
 *
 * <p>The arms, paired on that cut (two copies of the same image; the detect arm only when asked):
 * <ol>
 *   <li>Before any recovery, holes found independently: Kafka's DumpLogSegments over every segment
 *       ({@link DumpedHoles}), and {@code stallscope-agent check-logs}.</li>
 *   <li><b>detect</b> (the agent's defaults, which change nothing in recovery: stock Kafka's behaviour): node 3
 *       recovers the first copy, rejoins the ISR, is made leader of every partition and read from offset 0. Its
 *       agent's holes (WARN lines, {@code stallscope_log_holes}) against the independent ones; whether the
 *       cluster served a gap.</li>
 *   <li><b>control</b> (no agent at all, when asked): node 3's JVM without {@code -javaagent} recovers a third
 *       copy the same way; it must serve exactly the gaps the detect arm served, so the detect arm is stock Kafka.</li>
 *   <li><b>repair</b> ({@code mitigate=hole-repair}, through the agent's {@code config=} file): node 3 recovers the
 *       last copy the same way; every acknowledged record must be served once, in order, at its offset, with
 *       no offset skipped.</li>
 * </ol>
 * Asserted in every run: the repair arm is clean, and the three hole finders agree. On a compacted topic
 * ({@code -Dstallscope.powercut.stress.compacted=true}, records keyed by their number), where gaps are legitimate,
 * the agent and check-logs (told the topic is compacted) must call nothing a hole and repair nothing, whatever
 * DumpLogSegments finds: the control that the repair never touches a compacted log. Whether stock Kafka served a
 * hole is the cut's result, not an assertion (a cut can miss the window). Each cut appends a line to
 * target/bench/power-cut-stress.lines; scripts/power-cut-stress runs many and makes the table.
 *
 * <p>-Dstallscope.powercut.stress.versions=4.1.2 (default; e.g. 3.6.2,4.1.2), -Dstallscope.powercut.stress.cuts=1
 * (fresh clusters per version), -Dstallscope.powercut.stress.write.mibps=4, -Dstallscope.powercut.stress.window.ms=150,
 * -Dstallscope.powercut.stress.detect=true (the detect arm as well; without it, CI's one cut, only the repair arm runs,
 * and the finders and the agent's detection are compared on its copy), -Dstallscope.powercut.stress.control=true (the
 * control arm as well, with the detect arm), -Dstallscope.powercut.stress.broker.props=k=v,k=v (server properties for
 * every broker; the lines' version then reads VERSION+k=v,k=v).
 */
class PowerCutStressIT {
    private static final String TOPIC = "stress";
    private static final int PARTITIONS = 12;
    private static final int RATE = 2000;
    private static final int RECORD_BYTES = 1024;
    private static final int STEADY_SECONDS = 8;
    private static final int VICTIM = ThreeBrokerCluster.VICTIM;
    private static final int CUTS = Integer.getInteger("stallscope.powercut.stress.cuts", 1);
    private static final int WRITE_MIBPS = Integer.getInteger("stallscope.powercut.stress.write.mibps", 4);
    private static final int WINDOW_MS = Integer.getInteger("stallscope.powercut.stress.window.ms", 150);
    /** The detect arm too (scripts/power-cut-stress); CI runs the repair arm alone, its copy checked by the finders. */
    private static final boolean DETECT_ARM = Boolean.parseBoolean(System.getProperty("stallscope.powercut.stress.detect", "false"));
    /** The control arm too: node 3 without the agent, beside the detect arm (scripts/power-cut-stress). */
    private static final boolean CONTROL_ARM = DETECT_ARM && Boolean.parseBoolean(System.getProperty("stallscope.powercut.stress.control", "false"));
    /** The topic compacted (cleanup.policy=compact): the control that a compacted log is never called a hole nor repaired. */
    private static final boolean COMPACTED = Boolean.parseBoolean(System.getProperty("stallscope.powercut.stress.compacted", "false"));
    /** Extra server properties for every broker ("k=v,k=v"), e.g. a shorter checkpoint interval: a setting to say in the table. */
    private static final String BROKER_PROPS = System.getProperty("stallscope.powercut.stress.broker.props", "").trim();
    private static final Path DIR = Path.of(System.getProperty("stallscope.it.target", "target"), "realdisk").toAbsolutePath();
    private static final Pattern HOLE_LINE = Pattern.compile("hole in (\\S+)-(\\d+): offsets (\\d+)-(\\d+)");
    private static final Pattern REPAIRED = Pattern.compile("hole-repair: \\S+ truncated to offset");

    private static Map<String, String> extraBrokerProps() {
        Map<String, String> extra = new HashMap<>();
        for (String kv : BROKER_PROPS.isEmpty() ? new String[0] : BROKER_PROPS.split(",")) {
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("stallscope.powercut.stress.broker.props: '" + kv + "' is not key=value");
            }
            extra.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
        }
        return extra;
    }

    static Stream<Arguments> cuts() {
        return Stream.of(System.getProperty("stallscope.powercut.stress.versions", "4.1.2").split(","))
            .flatMap(v -> IntStream.rangeClosed(1, CUTS).mapToObj(c -> Arguments.of(v, c)));
    }

    @ParameterizedTest(name = "Kafka {0}, cut {1}")
    @MethodSource("cuts")
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void theRepairArmServesEveryAcknowledgedRecordAndTheHoleFindersAgree(String version, int cut, @TempDir Path tmp) throws Exception {
        RealDiskRequirement.assumeAvailable();
        long seed = System.nanoTime();
        Random random = new Random(seed);
        String head = "POWERCUTSTRESS " + version + (COMPACTED ? "/compacted" : "") + (BROKER_PROPS.isEmpty() ? "" : "+" + BROKER_PROPS)
            + " cut " + cut + ": ";
        // node 3's agent options come from this file at each start: empty (the defaults) until the repair arm
        Path agentConfig = Files.writeString(tmp.resolve("agent.properties"), "# the detect arm: the agent's defaults\n");
        try (PowerCutDisk disk = PowerCutDisk.create(FsType.XFS, 2L << 30, DIR)) {
            Path data = Files.createSymbolicLink(tmp.resolve("node3-data"), Files.createDirectories(disk.mountPoint().resolve("kafka")));
            Map<String, String> props = new HashMap<>(Map.of(
                "auto.leader.rebalance.enable", "false",
                // node 3 is killed twice per cut: its next registration waits for the last one's session
                "broker.session.timeout.ms", "4000",
                "broker.heartbeat.interval.ms", "1000"));
            props.putAll(extraBrokerProps());
            try (ThreeBrokerCluster cluster = new ThreeBrokerCluster(version, "power-cut-stress", props, "config=" + agentConfig,
                     b -> b.dataDir(data).launchWrapper(disk.launchWrapper()));
                 Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()))) {
                Map<String, String> configs = new HashMap<>(KafkaClients.SMALL_SEGMENTS);
                configs.put("min.insync.replicas", "2");
                if (COMPACTED) {
                    configs.put("cleanup.policy", "compact");
                }
                admin.createTopics(List.of(new NewTopic(TOPIC, layout(false)).configs(configs))).all().get(30, TimeUnit.SECONDS);
                Leadership leadership = new Leadership(admin, TOPIC);
                leadership.awaitInSync(VICTIM, Duration.ofSeconds(60));
                disk.sync(); // KRaft's bootstrap.checkpoint and meta.properties: as on a broker formatted long ago
                disk.disk().limit(IoLimits.NONE.withWriteBps((long) WRITE_MIBPS << 20));
                AckLedger ledger = new AckLedger();
                LocalKafkaBroker victim = cluster.victim();
                String line;
                try (SequencedProducer producer = new SequencedProducer(cluster.producerConfig(), TOPIC, RATE, RECORD_BYTES, ledger::ack, COMPACTED)) {
                    KillRecoveryIT.waitFor(() -> producer.ackedCount() >= (long) STEADY_SECONDS * RATE, Duration.ofSeconds(120),
                        head + "the producer made no progress");
                    Path rolled;
                    long delayMs = random.nextInt(WINDOW_MS + 1);
                    Path image;
                    try (RollWatch rolls = new RollWatch(disk.mountPoint().resolve("kafka"), TOPIC, PARTITIONS)) {
                        rolled = rolls.next(Duration.ofSeconds(60));
                        assertThat(rolled).as(head + "no roll on node 3 within 60 s").isNotNull();
                        TimeUnit.MILLISECONDS.sleep(delayMs);
                        image = disk.cut();
                    }
                    victim.kill(); // right after the copy: its page cache goes as a power cut's would
                    Path controlImage = CONTROL_ARM ? disk.twin(image) : null;
                    Path repairImage = DETECT_ARM ? disk.twin(image) : image;
                    String where = String.format(Locale.ROOT, "cut %d ms after %s/%s appeared, seed %d", delayMs,
                        rolled.getParent().getFileName(), rolled.getFileName(), seed);

                    // the independent finders on the first copy, before node 3 recovers it; then the detect arm
                    List<DumpedHoles.Hole> dumped = null;
                    List<String> checked = null;
                    Arm detect = null;
                    if (DETECT_ARM) {
                        try (RealDisk copy = disk.open(image)) {
                            Path logDir = copy.mountPoint().resolve("kafka");
                            dumped = DumpedHoles.find(cluster.broker(1), logDir, TOPIC, PARTITIONS);
                            checked = checkLogs(logDir, tmp);
                            detect = recover(cluster, victim, leadership, ledger, data, copy, agentConfig, "");
                            victim.kill();
                        }
                    }
                    // the control arm: the same recovery with no agent in node 3's JVM
                    Arm control = null;
                    if (CONTROL_ARM) {
                        try (RealDisk copy = disk.open(controlImage)) {
                            LocalKafkaBroker bare = cluster.victimWithoutAgent();
                            control = recover(cluster, bare, leadership, ledger, data, copy, agentConfig, "");
                            bare.kill();
                        }
                    }
                    // the repair arm, on the same cut
                    Arm repair;
                    try (RealDisk copy = disk.open(repairImage)) {
                        if (dumped == null) {
                            Path logDir = copy.mountPoint().resolve("kafka");
                            dumped = DumpedHoles.find(cluster.broker(1), logDir, TOPIC, PARTITIONS);
                            checked = checkLogs(logDir, tmp);
                        }
                        repair = recover(cluster, victim, leadership, ledger, data, copy, agentConfig, "mitigate=hole-repair\n");
                        victim.kill(); // before its disk goes
                    }
                    List<String> independent = dumped.stream().map(DumpedHoles.Hole::toString).sorted().toList();
                    // the agent says one hole per log at recovery (the first it meets), check-logs every hole
                    List<String> firstPerLog = firstPerLog(independent);
                    List<String> atRecovery = detect != null ? detect.holes : repair.holes;
                    // on a compacted topic nothing is a hole to the agent or check-logs, whatever the segments say
                    List<String> expected = COMPACTED ? List.of() : firstPerLog;
                    List<String> expectedChecked = COMPACTED ? List.of() : independent;
                    boolean agree = checked.equals(expectedChecked) && atRecovery.equals(expected) && repair.holes.equals(expected)
                        && repair.repairs == expected.size();
                    line = head + where + "; " + (agree ? "finders agree" : "FINDERS DISAGREE") + "; holes by DumpLogSegments " + independent.size() + " " + independent
                        + " (" + dumped.stream().mapToLong(DumpedHoles.Hole::offsets).sum() + " offsets), by check-logs "
                        + checked.size() + ", by the agent at recovery " + atRecovery.size()
                        + "; detect: " + (detect == null ? "not run" : (detect.check.gaps() > 0 ? "SERVED A HOLE " : "no hole served ")
                            + detect.check.describe() + " (gauge " + detect.holesGauge + ")")
                        + (control == null ? "" : "; control (no agent): " + (control.check.gaps() > 0 ? "SERVED A HOLE " : "no hole served ")
                            + control.check.describe() + (control.check.gapList().equals(detect.check.gapList()) ? ", as detect" : ", UNLIKE DETECT"))
                        + "; repair: " + (repair.check.clean() ? "clean " : "FAILED ")
                        + (repair.check.gaps() > 0 ? "SERVED A HOLE " : "no hole served ") + repair.check.describe()
                        + ", repairs " + repair.repairs + ", holes seen " + repair.holes.size();
                    CutLines.report("power-cut-stress", line);
                    assertThat(checked).as(line + ": check-logs against DumpLogSegments").containsExactlyInAnyOrderElementsOf(expectedChecked);
                    assertThat(atRecovery).as(line + ": the agent at recovery against DumpLogSegments' first hole of each log")
                        .containsExactlyInAnyOrderElementsOf(expected);
                    assertThat(repair.holes).as(line + ": the repair arm's agent at recovery").containsExactlyInAnyOrderElementsOf(expected);
                    assertThat(repair.repairs).as(line + ": repairs, one per log with a hole").isEqualTo(expected.size());
                    if (!COMPACTED) { // a compacted log keeps what the cut left, as stock Kafka does
                        assertThat(repair.check.clean()).as(line + ": the repair arm served every acknowledged record once, in order, with no gap").isTrue();
                    }
                    if (control != null) {
                        assertThat(control.check.gapList()).as(line + ": the control arm (no agent) served the detect arm's gaps")
                            .isEqualTo(detect.check.gapList());
                    }
                    assertThat(producer.failures()).as(head + "failed sends").isEmpty();
                }
            }
        }
    }

    /** What one arm's recovery of a cut did, and what node 3 served once it led every partition. */
    private record Arm(List<String> holes, double holesGauge, int repairs, ServedLog.Check check) {
    }

    /**
     * Starts node 3 ({@code victim}: the cluster's, or the same without the agent) on {@code copy} with
     * {@code agentOptions} in its agent's config file, waits until it is in the ISR of every partition, makes it
     * lead them all, and reads everything from it.
     */
    private static Arm recover(ThreeBrokerCluster cluster, LocalKafkaBroker victim, Leadership leadership, AckLedger ledger,
                               Path data, RealDisk copy, Path agentConfig, String agentOptions) throws Exception {
        boolean agent = victim == cluster.victim();
        Files.writeString(agentConfig, "# written by PowerCutStressIT before this start\n" + agentOptions);
        Files.delete(data);
        Files.createSymbolicLink(data, copy.mountPoint().resolve("kafka"));
        long logFrom = Files.exists(victim.logFile()) ? Files.size(victim.logFile()) : 0;
        victim.start(); // log recovery runs here
        leadership.awaitInSync(VICTIM, Duration.ofSeconds(180));
        leadership.lead(layout(true), Duration.ofSeconds(60));
        ServedLog.Check check = ServedLog.read(KafkaClients.consumerConfig(victim), TOPIC, PARTITIONS, ledger.snapshot(), Duration.ofSeconds(30));
        double gauge = agent ? PrometheusScrape.scrape(cluster.prometheusPort(VICTIM)).sum("stallscope_log_holes", Map.of("unit", "logs")) : Double.NaN;
        String log = PowerLossIT.since(victim.logFile(), logFrom);
        // spread the leaders again, so that the next arm's kill moves only a third of them
        leadership.lead(layout(false), Duration.ofSeconds(60));
        return new Arm(holes(log), gauge, PowerLossIT.count(REPAIRED, log), check);
    }

    /** Of holes named "topic-partition:from-to", sorted, the first of each partition. */
    private static List<String> firstPerLog(List<String> holes) {
        Map<String, String> first = new java.util.TreeMap<>();
        for (String h : holes) {
            String log = h.substring(0, h.indexOf(':'));
            String known = first.get(log);
            if (known == null || from(h) < from(known)) {
                first.put(log, h);
            }
        }
        return first.values().stream().sorted().toList();
    }

    private static long from(String hole) {
        return Long.parseLong(hole.substring(hole.indexOf(':') + 1, hole.lastIndexOf('-')));
    }

    /** {@code stallscope-agent check-logs} on a cut log dir: its holes in this test's topic (exit 3 with, 0 without). */
    private static List<String> checkLogs(Path logDir, Path tmp) throws Exception {
        Path out = tmp.resolve("check-logs.out");
        List<String> cmd = new ArrayList<>(List.of(KafkaJdks.defaultJdk().resolve("bin/java").toString(), "-jar", AgentJar.path().toString(),
            "check-logs", logDir.toString()));
        if (COMPACTED) {
            cmd.addAll(List.of("--compacted", TOPIC)); // a cut image holds no topic configs (KRaft keeps them in its metadata log)
        }
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        if (!p.waitFor(2, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError("check-logs did not end within 2 minutes on " + logDir);
        }
        String text = Files.readString(out);
        List<String> holes = holes(text);
        assertThat(p.exitValue()).as("check-logs' exit status: " + text).isEqualTo(holes.isEmpty() ? 0 : 3);
        return holes;
    }

    /** The distinct holes of this test's topic named in {@code text} (a broker's log, or check-logs' output). */
    private static List<String> holes(String text) {
        TreeSet<String> out = new TreeSet<>();
        Matcher m = HOLE_LINE.matcher(text);
        while (m.find()) {
            if (m.group(1).equals(TOPIC)) {
                out.add(m.group(1) + "-" + m.group(2) + ":" + m.group(3) + "-" + m.group(4));
            }
        }
        return new ArrayList<>(out);
    }

    /** Each partition's replicas, the preferred leader first: spread over the three nodes, or node 3 leading all. */
    private static Map<Integer, List<Integer>> layout(boolean victimLeads) {
        Map<Integer, List<Integer>> out = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            List<Integer> spread = List.of(1 + p % 3, 1 + (p + 1) % 3, 1 + (p + 2) % 3);
            if (victimLeads) {
                List<Integer> r = new ArrayList<>(List.of(VICTIM));
                spread.stream().filter(n -> n != VICTIM).forEach(r::add);
                out.put(p, r);
            } else {
                out.put(p, spread);
            }
        }
        return out;
    }

}
