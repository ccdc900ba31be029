package io.stallscope.it.mitigate;

import io.stallscope.it.agent.AgentJar;
import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.FreePorts;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.LocalKafkaBroker;
import io.stallscope.it.broker.PrometheusScrape;
import io.stallscope.it.realdisk.FsType;
import io.stallscope.it.realdisk.PowerCutDisk;
import io.stallscope.it.realdisk.RealDisk;
import io.stallscope.it.realdisk.RealDiskRequirement;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Power loss, on a real disk (root): a broker's log dir on a loop-device file system ({@link PowerCutDisk}),
 * an acks=all idempotent producer at 2,000 records/s of 512 B (1 MiB segments: a roll a second), and cuts at
 * random moments, each a point-in-time copy of what the device held (the page cache lost). Then, for each cut,
 * the same broker (same version, same agent options) starts on the mounted copy and recovers, and: every
 * record below the recovery point the copy's checkpoint file names is there, the log is a prefix of what the
 * producer sent (record n at offset n, none twice; a read that stalls past the recovery point is reported with
 * the cut's segments, not failed), and every producer-state snapshot Kafka rejected (CRC)
 * is counted from its log ("Failed to load producer snapshot"), as is what the cut cost: the acknowledged
 * records the recovered log lacks.
 *
 * <p>-Dstallscope.powerloss.set=none (no agent) or roll-flush;
 * -Dstallscope.powerloss.cuts=10; -Dstallscope.powerloss.versions=2.8.2,3.6.2; -Dstallscope.powerloss.fs=ext4.
 * The default (one cut, 3.6.2, roll-flush, XFS) is the CI smoke; scripts/bench-power-loss runs the full matrix.
 * The recovery-point checkpoint is written every second (Kafka's default: a minute) so that a run of a minute
 * has a recovery point worth checking.
 */
class PowerLossIT {
    private static final String TOPIC = "power";
    private static final int RATE = 2000;
    private static final Path DIR = Path.of(System.getProperty("stallscope.it.target", "target"), "realdisk").toAbsolutePath();
    private static final int CUTS = Integer.getInteger("stallscope.powerloss.cuts", 1);
    private static final String SET = System.getProperty("stallscope.powerloss.set", "roll-flush");
    private static final FsType FS = FsType.of(System.getProperty("stallscope.powerloss.fs", "xfs"));
    /** Kafka's WARN for a snapshot that fails its CRC or is cut short, naming the file (2.8.2 and 3.6.2 alike). */
    private static final Pattern SNAPSHOT_REJECTED = Pattern.compile(
        "(?:Failed to load producer snapshot|CorruptSnapshotException)[^\\n]*?(\\d{20})\\.snapshot");
    /** Producer state read from the log from the last usable snapshot on, at each start (2.8.2 and 3.6.2 alike). */
    private static final Pattern STATE_REBUILT = Pattern.compile("Loading producer state till offset");
    private static final Pattern SEGMENT_RECOVERED = Pattern.compile("Recovering unflushed segment");

    static List<String> versions() {
        return List.of(System.getProperty("stallscope.powerloss.versions", "3.6.2").split(","));
    }

    /** The agent's options for the set, or null for none (no agent at all). */
    static String agentOptions(String set) {
        return switch (set) {
            case "none" -> null;
            case "roll-flush" -> "mitigate=roll-flush";
            default -> throw new IllegalArgumentException("unknown stallscope.powerloss.set " + set + ": none or roll-flush");
        };
    }

    /** A cut and what the producer knew when it was taken. */
    record Cut(int n, Path image, long ackedBefore, String agentCounters) {
    }

    @ParameterizedTest(name = "Kafka {0}")
    @MethodSource("versions")
    @Timeout(value = 30, unit = TimeUnit.MINUTES)
    void everyRecordBelowTheRecoveryPointSurvivesACut(String version, @TempDir Path tmp) throws Exception {
        RealDiskRequirement.assumeAvailable();
        long seed = System.nanoTime();
        Random random = new Random(seed);
        String options = agentOptions(SET);
        int prometheusPort = FreePorts.next();
        String context = "Kafka " + version + ", " + SET + ", " + FS.kernelName() + ", seed " + seed;
        try (PowerCutDisk disk = PowerCutDisk.create(FS, 2L << 30, DIR)) {
            // log.dirs is a symbolic link: to the live disk first, then to each mounted cut in turn, so the
            // same broker (ports, ZooKeeper for 2.8, KRaft cluster id) recovers every cut
            Path live = Files.createDirectories(disk.mountPoint().resolve("kafka"));
            Path data = Files.createSymbolicLink(tmp.resolve("data"), live);
            BrokerSpec.Builder b = BrokerSpec.builder(version).name("power-loss").dataDir(data)
                .launchWrapper(disk.launchWrapper())
                .serverProperty("log.flush.offset.checkpoint.interval.ms", "1000");
            if (options != null) {
                b.javaAgent(AgentJar.path(), "prometheus=127.0.0.1:" + prometheusPort + "," + options);
            }
            List<Cut> cuts = new ArrayList<>();
            try (LocalKafkaBroker broker = new LocalKafkaBroker(b.build())) {
                broker.start();
                KafkaClients.createTopic(broker, TOPIC, 1, KafkaClients.SMALL_SEGMENTS);
                // as on a broker formatted long ago: 3.6's StorageTool writes bootstrap.checkpoint without an
                // fsync, and a cut seconds after the format leaves a broker that cannot start
                disk.sync();
                SequencedProducer producer = new SequencedProducer(KafkaClients.producerConfig(broker), TOPIC, RATE);
                try {
                    // Kafka writes its first recovery-point checkpoint 30 s after start: cut before and there is none to check
                    KillRecoveryIT.waitFor(() -> recoveryPoint(live) > 0, Duration.ofSeconds(120),
                        context + ": no recovery point checkpointed on the live disk");
                    for (int n = 1; n <= CUTS; n++) {
                        long before = producer.ackedCount();
                        // at least one roll (1 MiB at 1 MB/s) since the last cut, then a random moment of the next 3 s
                        KillRecoveryIT.waitFor(() -> producer.ackedCount() >= before + 2500, Duration.ofSeconds(90),
                            context + ": producer made no progress before cut " + n);
                        Thread.sleep(random.nextInt(3000));
                        long acked = producer.ackedCount(); // acknowledged before the cut, so lost if absent after it
                        Path image = disk.cut();
                        cuts.add(new Cut(n, image, acked, options == null ? "" : counters(prometheusPort)));
                    }
                } finally {
                    producer.close();
                }
                assertThat(producer.failures()).as(context + ": failed sends").isEmpty();
                broker.kill();
                List<String> failed = new ArrayList<>();
                for (Cut cut : cuts) {
                    try {
                        CutLines.report("power-loss", recover(broker, data, disk, cut, context));
                    } catch (AssertionError | RuntimeException e) {
                        // the other cuts still count: each is its own power loss
                        CutLines.report("power-loss", "POWERLOSS " + version + " " + SET + " " + FS.kernelName() + " cut " + cut.n()
                            + ": FAILED " + String.valueOf(e.getMessage()).replace('\n', ' '));
                        failed.add(String.valueOf(e.getMessage()));
                    }
                }
                assertThat(failed).as(context + ": cuts whose recovery failed a check").isEmpty();
            }
        }
    }

    /** Starts the broker on the cut, checks what it recovered, and says what the cut cost. */
    private static String recover(LocalKafkaBroker broker, Path data, PowerCutDisk disk, Cut cut, String context) throws Exception {
        String at = context + ", cut " + cut.n();
        try (RealDisk copy = disk.open(cut.image())) {
            Path kafka = copy.mountPoint().resolve("kafka");
            long recoveryPoint = recoveryPoint(kafka);
            String segments = segments(kafka.resolve(TOPIC + "-0")); // as the cut left them, for a failure's message
            Files.delete(data);
            Files.createSymbolicLink(data, kafka);
            long logFrom = Files.exists(broker.logFile()) ? Files.size(broker.logFile()) : 0;
            RecoveredLog recovered;
            try {
                broker.start(); // log recovery runs here
                recovered = RecoveredLog.read(broker, TOPIC, Duration.ofSeconds(30));
            } finally {
                broker.kill(); // before the copy is unmounted, and so the next cut can start it again
            }
            List<Long> log = recovered.sequences();
            // a read that stalls past the recovery point is reported, not failed: what lies there is Kafka's
            // recovery of unflushed segments, the same with or without the agent
            String stalled = recovered.complete() ? "" : String.format(Locale.ROOT,
                ", read stalled at offset %d of %d (segments in the cut, base offset:bytes: %s)",
                recovered.stoppedAt(), recovered.endOffset(), segments);
            String brokerLog = since(broker.logFile(), logFrom);
            for (int i = 0; i < log.size(); i++) {
                if (log.get(i) != i) {
                    throw new AssertionError(at + ": offset " + i + " holds record " + log.get(i)
                        + " (duplicate, lost or out of order in the middle of the log)");
                }
            }
            assertThat((long) log.size()).as(at + ": records read vs the checkpointed recovery point" + stalled)
                .isGreaterThanOrEqualTo(recoveryPoint);
            // a snapshot Kafka rejects (torn by the cut) must be one the recovery point did not rely on: stock Kafka
            // 2.8-3.6 fsyncs it in the roll, roll-flush before the recovery point passes it, Kafka 3.7 likewise
            List<Long> rejected = rejectedSnapshots(brokerLog);
            assertThat(rejected).as(at + ": snapshots Kafka rejected, all above the recovery point %d", recoveryPoint)
                .allSatisfy(offset -> assertThat(offset).isGreaterThan(recoveryPoint));
            long lost = Math.max(0, cut.ackedBefore() - log.size());
            return String.format(Locale.ROOT, "POWERLOSS %s %s %s cut %d: acked %d, recovery point %d, recovered %d,"
                    + " acked lost %d (%.2f s of produce), snapshots rejected %d, producer state rebuilt %d times,"
                + " segments recovered %d%s%s",
                broker.spec().version(), SET, FS.kernelName(), cut.n(), cut.ackedBefore(), recoveryPoint, log.size(),
                lost, lost / (double) RATE, rejected.size(), count(STATE_REBUILT, brokerLog), count(SEGMENT_RECOVERED, brokerLog),
                cut.agentCounters(), stalled);
        }
    }

    /** "0:1048000 1986:1047552 ..." for the partition's .log files. */
    private static String segments(Path partitionDir) throws Exception {
        if (!Files.isDirectory(partitionDir)) {
            return "(no " + partitionDir.getFileName() + ")";
        }
        try (var files = Files.list(partitionDir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().map(f -> {
                try {
                    return Long.parseLong(f.getFileName().toString().replace(".log", "")) + ":" + Files.size(f);
                } catch (java.io.IOException e) {
                    return f.getFileName() + ":?";
                }
            }).collect(java.util.stream.Collectors.joining(" "));
        }
    }

    /** The topic's recovery point in the log dir's checkpoint file, 0 when the file or the entry is absent. */
    private static long recoveryPoint(Path logDir) throws Exception {
        Path file = logDir.resolve("recovery-point-offset-checkpoint");
        if (!Files.exists(file)) {
            return 0;
        }
        return Files.readAllLines(file).stream().map(l -> l.split(" ")).filter(f -> f.length == 3 && f[0].equals(TOPIC))
            .mapToLong(f -> Long.parseLong(f[2])).findFirst().orElse(0);
    }

    private static String counters(int port) {
        try {
            PrometheusScrape m = PrometheusScrape.scrape(port);
            return String.format(Locale.ROOT, "; at the cut: %.0f snapshots deferred / %.0f fsynced",
                m.event("roll-flush", "deferred"), m.event("roll-flush", "flushed"));
        } catch (Exception e) {
            return "; agent metrics unreadable: " + e;
        }
    }

    static String since(Path file, long from) throws Exception {
        byte[] all = Files.readAllBytes(file);
        return new String(all, (int) Math.min(from, all.length), (int) Math.max(0, all.length - from), StandardCharsets.ISO_8859_1);
    }

    /** The offsets of the snapshots Kafka rejected, from their file names in its WARN lines. */
    private static List<Long> rejectedSnapshots(String brokerLog) {
        List<Long> offsets = new ArrayList<>();
        Matcher m = SNAPSHOT_REJECTED.matcher(brokerLog);
        while (m.find()) {
            offsets.add(Long.parseLong(m.group(1)));
        }
        return offsets;
    }

    static int count(Pattern p, String text) {
        return (int) p.matcher(text).results().count();
    }
}
