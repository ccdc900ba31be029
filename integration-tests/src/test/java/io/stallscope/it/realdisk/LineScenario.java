package io.stallscope.it.realdisk;

import io.stallscope.it.agent.AgentJar;
import io.stallscope.it.broker.AbstractKafkaBroker;
import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.FreePorts;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.KafkaJdks;
import io.stallscope.it.broker.LocalKafkaBroker;
import io.stallscope.it.broker.PrometheusScrape;
import io.stallscope.it.container.ContainerKafkaBroker;
import io.stallscope.it.mitigate.CatchUpProcess;
import io.stallscope.it.mitigate.LatencyProducer;
import io.stallscope.it.slowdisk.PageCache;
import org.apache.kafka.clients.producer.ProducerConfig;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * LINE's stall on a real disk (shared/notes/real-disks.md): a Kafka broker whose log dir is on a loop-device
 * file system with cold reads throttled at the block layer; a backlog that sits in the partition's ACTIVE
 * segment (segments of 1 GiB) and is evicted from the page cache; a steady producer (acks=1) to that
 * partition; then a consumer reading it from offset 0. On XFS the network thread's sendfile of the cold
 * backlog holds the file's inode lock shared while it waits for the disk, and the request handler's
 * write(2) of the producer's batch, which needs it exclusive, waits behind it while holding the partition
 * lock. Witnesses: the JDK's own jdk.FileWrite events (no agent involved), the producer's latencies, the
 * agent's records_append histogram, and optionally an on-demand agent capture for the analyzer.
 */
final class LineScenario {
    static final String TOPIC = "line";

    /** What to run; {@link #defaults(FsType)} is the scenario of the notes. */
    record Options(FsType fs, String kafka, double readMiBps, int backlogMiB, int rate, long segmentBytes,
                   int networkThreads, String agentOptions, int settleSeconds, int beforeSeconds, boolean capture,
                   boolean container) {
        static Options defaults(FsType fs) {
            return new Options(fs, "3.9.2", 8, 128, 500, 1L << 30, 1, "", 5, 20, false, false);
        }

        Options withCapture() {
            return new Options(fs, kafka, readMiBps, backlogMiB, rate, segmentBytes, networkThreads, agentOptions, settleSeconds,
                beforeSeconds, true, container);
        }

        Options withAgentOptions(String options) {
            return new Options(fs, kafka, readMiBps, backlogMiB, rate, segmentBytes, networkThreads, options, settleSeconds,
                beforeSeconds, capture, container);
        }

        /** Another Kafka version (ZooKeeper for 2.8, KRaft from 3.3, as {@link BrokerSpec} starts them). */
        Options withKafka(String version) {
            return new Options(fs, version, readMiBps, backlogMiB, rate, segmentBytes, networkThreads, agentOptions, settleSeconds,
                beforeSeconds, capture, container);
        }

        /**
         * A shorter "before" window: for runs that judge only the catch-up (its slow lines, the capture), not the
         * producer's p99.9 during / before, which needs the whole window's samples.
         */
        Options withBeforeSeconds(int seconds) {
            return new Options(fs, kafka, readMiBps, backlogMiB, rate, segmentBytes, networkThreads, agentOptions, settleSeconds,
                seconds, capture, container);
        }

        /** The same disk with no read limit: the fast-disk control, where nothing should be named as a culprit. */
        Options unthrottled() {
            return new Options(fs, kafka, 0, backlogMiB, rate, segmentBytes, networkThreads, agentOptions, settleSeconds,
                beforeSeconds, capture, container);
        }

        /** LINE's own fix: segments small enough that the active one stays in the page cache. */
        Options withSegmentBytes(long bytes) {
            return new Options(fs, kafka, readMiBps, backlogMiB, rate, bytes, networkThreads, agentOptions, settleSeconds,
                beforeSeconds, capture, container);
        }

        /**
         * More network threads: the producer's and the consumer's connections then likely land on different
         * ones, so what is left of the producer's stall is the handler's write, not a shared network thread.
         */
        Options withNetworkThreads(int n) {
            return new Options(fs, kafka, readMiBps, backlogMiB, rate, segmentBytes, n, agentOptions, settleSeconds,
                beforeSeconds, capture, container);
        }

        /**
         * The broker in a container (the image built here), its reads throttled by the container engine's own
         * device limits from the start, not by the real disk's cgroup. No agent capture (it attaches by pid).
         */
        Options inContainer() {
            if (capture) {
                throw new IllegalArgumentException("no agent capture of a container broker in this scenario");
            }
            return new Options(fs, kafka, readMiBps, backlogMiB, rate, segmentBytes, networkThreads, agentOptions, settleSeconds,
                beforeSeconds, false, true);
        }
    }

    /** What one run measured; times in ms. */
    record Result(Options options, String disk, double residentAtStart, double p999Before, double p999During,
                  List<SlowFileWrites.Write> slowWritesBefore, List<SlowFileWrites.Write> slowWritesDuring,
                  double appendP999Handlers, double networkTransferP99, double catchUpSeconds, long consumed,
                  Path capture, Path dir, List<String> slowAppendLines, List<String> slowLinesNamingAnyone) {
        double ratio() {
            return p999During / p999Before;
        }

        String summary() {
            return String.format(java.util.Locale.ROOT, "%s: resident at start %.3f; produce p99.9 before %.1f ms, during %.1f ms (%.1fx);"
                    + " handler write(2) >= 20 ms before %d, during %d (max %.0f ms); agent records_append p99.9 on request"
                    + " handlers %.1f ms; network transfer_to p99 %.1f ms; catch-up %.1f s, %d records",
                disk, residentAtStart, p999Before, p999During, ratio(), slowWritesBefore.size(), slowWritesDuring.size(),
                SlowFileWrites.maxMs(slowWritesDuring), appendP999Handlers, networkTransferP99, catchUpSeconds, consumed);
        }
    }

    static final Duration SLOW_WRITE = Duration.ofMillis(20);

    private LineScenario() {
    }

    static Result run(Options o, Path dir) throws Exception {
        Files.createDirectories(dir);
        Path target = Path.of(System.getProperty("stallscope.it.target", "target")).toAbsolutePath();
        Path fileIo = dir.resolve("file-io.jfr");
        Files.deleteIfExists(fileIo);
        int prometheus = FreePorts.next();
        // the backlog and the steady records, with room for the file system's own metadata
        long size = Math.max(1L << 30, (o.backlogMiB() * 3L) << 20);
        try (RealDisk disk = RealDisk.create(o.fs(), size, target.resolve("realdisk"))) {
            IoLimits reads = o.readMiBps() > 0 ? IoLimits.readMiBps(o.readMiBps()) : IoLimits.NONE;
            BrokerSpec.Builder b = BrokerSpec.builder(o.kafka()).name("line-" + o.fs().kernelName() + (o.container() ? "-container" : ""))
                .dataDir(disk.mountPoint().resolve("kafka")).heap("1g")
                .serverProperty("num.network.threads", Integer.toString(o.networkThreads()))
                .serverProperty("log.segment.bytes", Long.toString(o.segmentBytes()))
                .javaAgent(AgentJar.path(), "prometheus=127.0.0.1:" + prometheus
                    + (o.agentOptions().isEmpty() ? "" : "," + o.agentOptions()))
                .jvmArg(SlowFileWrites.jvmOption(SlowFileWrites.settings(dir, SLOW_WRITE), fileIo));
            if (!o.container()) {
                // JVM-wide pauses (time to safepoint: a thread faulting on a cold page cannot stop) are not in the recording
                b.jvmArg("-Xlog:safepoint=info,gc=info:file=" + dir.resolve("safepoint.log") + ":utctime,uptime");
            }
            // A child JVM enters the disk's cgroup, limited once the backlog is written; a container is throttled
            // by the engine in its own cgroup from its start (reads only, so writing the backlog is not slowed).
            BrokerSpec spec = o.container() ? b.deviceLimits(disk.device(), reads).build() : b.launchWrapper(disk.launchWrapper()).build();
            Result r;
            try (AbstractKafkaBroker broker = o.container() ? new ContainerKafkaBroker(spec) : new LocalKafkaBroker(spec)) {
                broker.start();
                KafkaClients.createTopic(broker, TOPIC, 1, Map.of("segment.bytes", Long.toString(o.segmentBytes())));
                KafkaClients.producerPerformance(broker, TOPIC, (long) o.backlogMiB() * 1024, 1024, -1,
                    Map.of("batch.size", "262144", "linger.ms", "20"), Duration.ofMinutes(10));
                List<Path> logs = segments(broker.dataDir().resolve(TOPIC + "-0"));
                if (!o.container()) {
                    disk.limit(reads);
                }
                PageCache.evict(logs);
                double resident = PageCache.residentFraction(logs);
                Map<String, Object> config = KafkaClients.producerConfig(broker);
                config.put(ProducerConfig.ACKS_CONFIG, "1");
                config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
                Window w;
                // the producer is closed (its last records acknowledged) before the broker stops
                try (LatencyProducer steady = new LatencyProducer(config, TOPIC, o.rate())) {
                    w = measure(o, broker, prometheus, steady, dir);
                }
                broker.stop(); // the JVM writes its file-I/O recording as it exits
                List<String> slow = slowLines(broker.logFile(), w.catchUpAt, w.catchUpEndAt);
                List<String> slowAppends = slow.stream().filter(l -> l.contains("slow op=records_append")
                    && l.contains("role=request_handler") && l.contains("topic=" + TOPIC + " partition=0")).toList();
                List<SlowFileWrites.Write> writes = SlowFileWrites.byRequestHandlers(fileIo, "/" + TOPIC + "-0/", SLOW_WRITE);
                r = new Result(o, o.container() ? disk.describe(reads, "the container engine's device limits, broker in a container") : disk.describe(), resident, w.p999Before, w.p999During,
                    SlowFileWrites.between(writes, w.beforeAt, w.catchUpAt),
                    SlowFileWrites.between(writes, w.catchUpAt, w.catchUpEndAt),
                    w.atEnd.quantileMsSince(w.atStart, "records_append", "request_handler", 0.999),
                    w.atEnd.quantileMsSince(w.atStart, "transfer_to", "network", 0.99),
                    w.catchUpSeconds, w.consumed, o.capture() ? dir.resolve("capture.jfr") : null, dir, slowAppends,
                    slow.stream().filter(l -> l.contains(": behind ")).toList());
            }
            Files.writeString(dir.resolve("result.txt"), r.summary() + "\n");
            return r;
        }
    }

    /** The two windows of one run: the steady producer alone, then with the catch-up consumer. */
    private record Window(double p999Before, double p999During, Instant beforeAt, Instant catchUpAt, Instant catchUpEndAt,
                          PrometheusScrape atStart, PrometheusScrape atEnd, double catchUpSeconds, long consumed) {
    }

    private static Window measure(Options o, AbstractKafkaBroker broker, int prometheus, LatencyProducer steady, Path dir)
        throws Exception {
        TimeUnit.SECONDS.sleep(o.settleSeconds()); // connection, metadata, first batches: not measured
        long before = System.nanoTime();
        Instant beforeAt = Instant.now();
        TimeUnit.SECONDS.sleep(o.beforeSeconds());
        // "Before" ends here, not once the consumer is positioned: its JVM starting on the same two cores is not the
        // steady producer alone (a 73 ms p99.9 "before" from that start once made the ratio 4.8x, 2026-11-28).
        long beforeEnd = System.nanoTime();
        PrometheusScrape atStart = PrometheusScrape.scrape(prometheus);
        Process capture = null;
        Path captureFile = dir.resolve("capture.jfr");
        long catchUp;
        Instant catchUpAt;
        long consumed;
        try (CatchUpProcess consumer = CatchUpProcess.start(broker.bootstrapServers(), TOPIC, 19, dir.resolve("catch-up"))) {
            consumer.awaitPositioned(Duration.ofMinutes(2));
            catchUp = System.nanoTime();
            catchUpAt = Instant.now();
            if (o.capture()) {
                Files.deleteIfExists(captureFile);
                capture = new ProcessBuilder(KafkaJdks.defaultJdk().resolve("bin/java").toString(), "-jar",
                    AgentJar.path().toString(), "capture", Long.toString(broker.pid()), "--duration", "20s",
                    "--out", captureFile.toString()).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("capture.out").toFile()).start();
            }
            consumed = consumer.awaitDone(Duration.ofMinutes(10));
        }
        long catchUpEnd = System.nanoTime();
        Instant catchUpEndAt = Instant.now();
        PrometheusScrape atEnd = PrometheusScrape.scrape(prometheus);
        if (capture != null && (!capture.waitFor(2, TimeUnit.MINUTES) || capture.exitValue() != 0)) {
            throw new IllegalStateException("agent capture failed: " + Files.readString(dir.resolve("capture.out")));
        }
        return new Window(steady.quantileMs(before, beforeEnd, 0.999), steady.quantileMs(catchUp, catchUpEnd, 0.999),
            beforeAt, catchUpAt, catchUpEndAt, atStart, atEnd, (catchUpEnd - catchUp) / 1e9, consumed);
    }

    /**
     * The agent's slow-op lines during the catch-up, from the broker's log: the window the JDK's witness counts too
     * (writing the backlog at full speed has slow writes of its own, with no reader to wait for).
     */
    private static List<String> slowLines(Path brokerLog, Instant from, Instant to) throws Exception {
        try (Stream<String> lines = Files.lines(brokerLog, StandardCharsets.ISO_8859_1)) {
            return lines.filter(l -> l.contains("slow op="))
                .filter(l -> {
                    Instant at = loggedAt(l);
                    return !at.isBefore(from) && !at.isAfter(to);
                }).collect(Collectors.toList());
        }
    }

    /** The time of a broker log line, "[2026-11-25 10:15:02,123] WARN ...", in the broker's (this machine's) zone. */
    static Instant loggedAt(String line) {
        return LocalDateTime.parse(line.substring(1, line.indexOf(']')), LOG_TIME).atZone(ZoneId.systemDefault()).toInstant();
    }

    private static final DateTimeFormatter LOG_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss,SSS");

    private static List<Path> segments(Path partitionDir) throws Exception {
        List<Path> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(partitionDir)) {
            files.filter(f -> f.getFileName().toString().endsWith(".log")).forEach(out::add);
        }
        return out;
    }
}
