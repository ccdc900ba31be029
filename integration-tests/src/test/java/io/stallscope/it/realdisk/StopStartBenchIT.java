package io.stallscope.it.realdisk;

import io.stallscope.it.agent.AgentJar;
import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.LocalKafkaBroker;
import io.stallscope.it.slowdisk.PageCache;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Benchmark, not a CI test (scripts/bench-stop-start, results in docs/lab/stop-start.md): a broker with many
 * partitions and segments on a real loop-device XFS (RealDisk, root), its files evicted from the page cache and
 * reads throttled, stopped by SIGTERM and started again. Per round it records the stop's wall time from outside
 * (signal to process exit), the breakdown's total and phases, whether the slowest logs named are the "deep"
 * partitions (many more segments, and megabytes written to them right before the stop for its flush to write
 * through a throttled disk: made slow on purpose), and the start's time. The stop's coverage is read from the
 * breakdown's end line (the end of the broker's own shutdown) against the wall time. Arms alternate per round: the
 * agent with the breakdown, and the agent inactive (activate.main matches nothing: the jar is loaded, nothing
 * is instrumented), on the same data, through a config file rewritten between restarts. With
 * {@code -Dstallscope.bench.lock=FILE} it takes a shared machine's lock itself ({@link BenchLock}): shared for the
 * fill and each restart into an arm, exclusive only for each measured stop and start.
 */
@EnabledIfSystemProperty(named = "stallscope.bench", matches = "true")
class StopStartBenchIT {
    private static final String VERSION = System.getProperty("stallscope.bench.version", "4.4.0");
    private static final int PARTITIONS = Integer.getInteger("stallscope.bench.partitions", 2000);
    private static final int SEGMENTS = Integer.getInteger("stallscope.bench.segments", 10);
    private static final int DEEP_PARTITIONS = Integer.getInteger("stallscope.bench.deep.partitions", 5);
    private static final int DEEP_SEGMENTS = Integer.getInteger("stallscope.bench.deep.segments", 100);
    private static final int ROUNDS = Integer.getInteger("stallscope.bench.rounds", 3);
    private static final double READ_MIBPS = Double.parseDouble(System.getProperty("stallscope.bench.read.mibps", "4"));
    private static final double WRITE_MIBPS = Double.parseDouble(System.getProperty("stallscope.bench.write.mibps", "20"));
    /** Written to each deep partition right before each measured stop, left for the stop's flush (0: none). */
    private static final int DEEP_UNFLUSHED_MIB = Integer.getInteger("stallscope.bench.deep.unflushed.mib", 4);
    private static final Path DIR = Path.of(System.getProperty("stallscope.it.target", "target"), "stop-start-bench")
        .toAbsolutePath();
    private static final Pattern STOP = Pattern.compile("stop breakdown: (\\d+\\.\\d+) s .*?log manager (\\d+\\.\\d+) s\\);"
        + " flushing logs (\\d+\\.\\d+) s, closing logs (\\d+\\.\\d+) s \\(closing segments (\\d+\\.\\d+) s: index trim"
        + " (\\d+\\.\\d+) s, time-index last entry (\\d+\\.\\d+) s, file truncation (\\d+\\.\\d+) s\\), checkpoints"
        + " (\\d+\\.\\d+) s.*?; (\\d+) logs, (\\d+) segments");
    private static final Pattern END = Pattern.compile("stop breakdown, end: (\\d+\\.\\d+) s .*?after it (\\d+\\.\\d+) s");
    private static final Pattern START = Pattern.compile("start breakdown: loading logs (\\d+\\.\\d+) s");
    private static final Pattern SLOWEST = Pattern.compile("stop breakdown, slowest logs \\(flush and close\\): (.*?)( \\(stallscope\\))?$",
        Pattern.MULTILINE);

    @Test
    @Timeout(value = 180, unit = TimeUnit.MINUTES) // with -Dstallscope.bench.lock, waits for other users of the machine
    void stopAndStartOnASlowDiskAreBrokenDown() throws Exception {
        RealDiskRequirement.assumeAvailable();
        BenchLock lock = BenchLock.fromProperty();
        Files.createDirectories(DIR);
        Path config = DIR.resolve("agent-" + VERSION + ".properties");
        Files.writeString(config, "stop.progress=10s\n");
        List<String> rows = new ArrayList<>();
        Map<String, List<double[]>> walls = new TreeMap<>(); // arm -> {stop wall, start wall} per round
        List<String> openFiles = new ArrayList<>();
        try (RealDisk disk = RealDisk.create(FsType.XFS, 4L << 30, DIR.resolve("disk-" + VERSION))) {
            Path metadata = Files.createTempDirectory(DIR, "metadata");
            BrokerSpec spec = BrokerSpec.builder(VERSION).name("stop-start-bench").heap("2g")
                .dataDir(disk.mountPoint().resolve("kafka")).launchWrapper(disk.launchWrapper())
                .serverProperty("metadata.log.dir", metadata.toString())
                .serverProperty("num.partitions", "1")
                // one closing thread (2.8's default; 4.x has 2): the phases then add up to the log manager's wall
                // time, and a deep log's flush does not stall a bulk log's flush on the other thread
                .serverProperty("num.recovery.threads.per.data.dir", "1")
                .startTimeout(java.time.Duration.ofMinutes(15))
                .javaAgent(AgentJar.path(), "config=" + config)
                .build();
            try (LocalKafkaBroker broker = new LocalKafkaBroker(spec)) {
                try (AutoCloseable held = lock.shared("the fill")) {
                    broker.start();
                    long t0 = System.nanoTime();
                    fill(broker);
                    int segments = files(broker.dataDir(), ".log").size();
                    System.out.printf(Locale.ROOT, "filled %d + %d partitions in %.0f s; %d segment files%n", PARTITIONS,
                        DEEP_PARTITIONS, (System.nanoTime() - t0) / 1e9, segments);
                    keepUnflushed(broker);
                    openFiles.add("after the fill, " + segments + " segment files: " + OpenFiles.describe(broker.pid()));
                    System.out.println("broker " + openFiles.get(0));
                }
                disk.limit(IoLimits.readMiBps(READ_MIBPS).withWriteBps((long) (WRITE_MIBPS * 1048576)));
                for (int round = 0; round < ROUNDS; round++) {
                    for (String arm : round % 2 == 0 ? List.of("breakdown", "off") : List.of("off", "breakdown")) {
                        String what = "round " + round + ", " + arm;
                        try (AutoCloseable held = lock.shared(what + ": restart into the arm")) {
                            Files.writeString(config, arm.equals("off") ? "activate.main=no-such-main-class\n"
                                : "stop.progress=10s\n");
                            // the arm takes effect at the next start: restart into it, then measure its stop and start
                            evict(broker.dataDir());
                            broker.stop();
                            broker.start();
                        }
                        try (AutoCloseable held = lock.exclusive(what + ": the measured stop and start")) {
                            evict(broker.dataDir());
                            // after the eviction, which would start their writeback
                            writeUnflushed(broker);
                            long logBefore = Files.size(broker.logFile());
                            long pid = broker.pid();
                            long signal = System.nanoTime();
                            new ProcessBuilder("kill", "-TERM", Long.toString(pid)).inheritIO().start().waitFor();
                            ProcessHandle.of(pid).ifPresent(h -> h.onExit().join());
                            double stopWall = (System.nanoTime() - signal) / 1e9;
                            broker.stop(); // the harness's bookkeeping (and 2.8's ZooKeeper)
                            String stopLog = tail(broker.logFile(), logBefore);
                            evict(broker.dataDir());
                            long startLogBefore = Files.size(broker.logFile());
                            broker.start();
                            double startWall = broker.lastStartDuration().toMillis() / 1000.0;
                            String startLog = tail(broker.logFile(), startLogBefore);
                            rows.add(row(round, arm, stopWall, stopLog, startWall, startLog));
                            walls.computeIfAbsent(arm, a -> new ArrayList<>()).add(new double[] {stopWall, startWall});
                            System.out.println(rows.get(rows.size() - 1));
                        }
                        if (round == 0) {
                            openFiles.add("after the start (" + arm + "): " + OpenFiles.describe(broker.pid()));
                            System.out.println("broker " + openFiles.get(openFiles.size() - 1));
                        }
                    }
                }
            }
        }
        StringBuilder md = new StringBuilder("Kafka " + VERSION + ", num.recovery.threads.per.data.dir=1, " + PARTITIONS + " partitions x " + SEGMENTS
            + " segments + " + DEEP_PARTITIONS + " deep x " + DEEP_SEGMENTS + " with " + DEEP_UNFLUSHED_MIB
            + " MiB unflushed each at the stop, reads " + READ_MIBPS + " MiB/s, writes " + WRITE_MIBPS
            + " MiB/s, XFS loop device\n\n"
            + "| round | arm | stop wall (signal to exit) s | to the end of the broker's shutdown s | end/wall |"
            + " after the log manager s | breakdown total s | total/wall | log manager s | flush s | close s |"
            + " segments s | index trim s | last entry s | truncation s | checkpoints s | logs | segments | slowest are deep |"
            + " start wall s | loading logs s |\n|" + "---|".repeat(21) + "\n");
        rows.forEach(r -> md.append(r).append('\n'));
        md.append("\n| arm | rounds | stop wall median s | stop wall min-max s | start wall median s | start wall min-max s |\n")
            .append("|---|---|---|---|---|---|\n");
        walls.forEach((arm, w) -> md.append(String.format(Locale.ROOT, "| %s | %d | %.3f | %.3f-%.3f | %.3f | %.3f-%.3f |%n",
            arm, w.size(), median(w, 0), min(w, 0), max(w, 0), median(w, 1), min(w, 1), max(w, 1))));
        md.append("\nThe broker's open files (/proc/PID/fd):\n\n");
        openFiles.forEach(o -> md.append("- ").append(o).append('\n'));
        Path out = Path.of(System.getProperty("stallscope.it.target", "target"), "bench", "stop-start-" + VERSION + ".md");
        Files.createDirectories(out.getParent());
        Files.writeString(out, md.toString());
        System.out.println(md);
        assertThat(rows).hasSize(2 * ROUNDS);
    }

    private static double median(List<double[]> w, int i) {
        double[] v = w.stream().mapToDouble(x -> x[i]).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private static double min(List<double[]> w, int i) {
        return w.stream().mapToDouble(x -> x[i]).min().orElse(Double.NaN);
    }

    private static double max(List<double[]> w, int i) {
        return w.stream().mapToDouble(x -> x[i]).max().orElse(Double.NaN);
    }

    private static String row(int round, String arm, double stopWall, String stopLog, double startWall, String startLog) {
        Matcher s = STOP.matcher(stopLog);
        Matcher st = START.matcher(startLog);
        String loading = st.find() ? st.group(1) : "-";
        if (!s.find()) {
            return String.format(Locale.ROOT, "| %d | %s | %.3f |" + " - |".repeat(17) + " %.3f | %s |",
                round, arm, stopWall, startWall, loading);
        }
        Matcher e = END.matcher(stopLog);
        String end = "- | - | -";
        if (e.find()) {
            double whole = Double.parseDouble(e.group(1));
            end = String.format(Locale.ROOT, "%.3f | %.2f | %s", whole, whole / stopWall, e.group(2));
        }
        double total = Double.parseDouble(s.group(1));
        Matcher slow = SLOWEST.matcher(stopLog);
        String deep = "-";
        if (slow.find()) {
            String[] logs = slow.group(1).split(", ");
            int named = 0;
            for (int i = 0; i < Math.min(DEEP_PARTITIONS, logs.length); i++) {
                named += logs[i].startsWith("deep-") ? 1 : 0;
            }
            deep = named + "/" + DEEP_PARTITIONS;
        }
        return String.format(Locale.ROOT, "| %d | %s | %.3f | %s | %.3f | %.2f | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.3f | %s |",
            round, arm, stopWall, end, total, total / stopWall, s.group(2), s.group(3), s.group(4), s.group(5), s.group(6),
            s.group(7), s.group(8), s.group(9), s.group(10), s.group(11), deep, startWall, loading);
    }

    /** PARTITIONS partitions of SEGMENTS segments and a few deep ones of many more: segment.ms=1 rolls at every batch. */
    private static void fill(LocalKafkaBroker broker) throws Exception {
        Map<String, String> rollEveryBatch = Map.of("segment.ms", "1", "segment.jitter.ms", "0",
            "segment.index.bytes", "10485760");
        KafkaClients.createTopic(broker, "bulk", PARTITIONS, rollEveryBatch);
        KafkaClients.createTopic(broker, "deep", DEEP_PARTITIONS, rollEveryBatch);
        Map<String, Object> cfg = new HashMap<>(KafkaClients.producerConfig(broker));
        cfg.put("linger.ms", "0");
        byte[] value = new byte[512];
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(cfg, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int s = 0; s < Math.max(SEGMENTS, DEEP_SEGMENTS); s++) {
                if (s < SEGMENTS) {
                    for (int part = 0; part < PARTITIONS; part++) {
                        p.send(new ProducerRecord<>("bulk", part, null, value));
                    }
                }
                for (int part = 0; part < DEEP_PARTITIONS; part++) {
                    p.send(new ProducerRecord<>("deep", part, null, value));
                }
                p.flush();
                Thread.sleep(5);
            }
        }
    }

    /** The deep topic stops rolling, so what is written to it before a stop stays in its active segment, unflushed. */
    private static void keepUnflushed(LocalKafkaBroker broker) throws Exception {
        try (Admin admin = KafkaClients.admin(broker)) {
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, "deep"),
                List.of(new AlterConfigOp(new ConfigEntry("segment.ms", "604800000"), AlterConfigOp.OpType.SET))))
                .all().get();
        }
    }

    /** DEEP_UNFLUSHED_MIB to each deep partition, acknowledged (in the page cache), for the stop's flush to write. */
    private static void writeUnflushed(LocalKafkaBroker broker) throws Exception {
        if (DEEP_UNFLUSHED_MIB == 0) {
            return;
        }
        byte[] value = new byte[64 << 10];
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(KafkaClients.producerConfig(broker),
            new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < DEEP_UNFLUSHED_MIB * 16; i++) {
                for (int part = 0; part < DEEP_PARTITIONS; part++) {
                    p.send(new ProducerRecord<>("deep", part, null, value));
                }
            }
            p.flush();
        }
    }

    /** In batches: tens of thousands of paths exceed one command line. */
    private static void evict(Path dataDir) throws Exception {
        List<Path> all = files(dataDir, "");
        for (int i = 0; i < all.size(); i += 500) {
            PageCache.evict(all.subList(i, Math.min(all.size(), i + 500)));
        }
    }

    private static List<Path> files(Path dataDir, String suffix) throws Exception {
        List<Path> out = new ArrayList<>();
        // not Kafka's checkpoint temp files, and no failure on them: a running broker renames them away between
        // the walk and the eviction, or during the walk itself
        Files.walkFileTree(dataDir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) {
                String name = f.getFileName().toString();
                if (attrs.isRegularFile() && name.endsWith(suffix) && !name.endsWith(".tmp")) {
                    out.add(f);
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path f, IOException e) {
                return FileVisitResult.CONTINUE;
            }
        });
        return out;
    }

    private static String tail(Path file, long from) throws Exception {
        byte[] all = Files.readAllBytes(file);
        int start = (int) Math.min(from, all.length);
        return new String(all, start, all.length - start, StandardCharsets.ISO_8859_1);
    }
}
