package io.stallscope.it.tiered;

import io.stallscope.it.agent.AgentJar;
import io.stallscope.it.agent.Polling;
import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.capture.AnalyzerRun;
import io.stallscope.it.broker.FreePorts;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.KafkaVersion;
import io.stallscope.it.broker.LocalKafkaBroker;
import io.stallscope.it.broker.LogLines;
import io.stallscope.it.broker.PartitionFiles;
import io.stallscope.it.broker.LocalTieredStorage;
import io.stallscope.it.broker.PrometheusScrape;
import io.stallscope.it.mitigate.LatencyProducer;
import io.stallscope.it.realdisk.BlockIoCgroup;
import io.stallscope.it.realdisk.FsType;
import io.stallscope.it.realdisk.IoLimits;
import io.stallscope.it.realdisk.RealDisk;
import io.stallscope.it.slowdisk.PageCache;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * Remote reads from a slow remote tier, for real (issue 55): Kafka's own LocalTieredStorage with its directory on a
 * fresh loop-device file system, the broker in a cgroup whose reads of that device the I/O controller throttles (or
 * not: the unthrottled control). A backlog in 1 MiB segments over {@link #PARTITIONS} partitions is copied to the remote
 * tier and deleted locally, the remote files are evicted from the page cache, and for the window: consumers read
 * the tiered topic from offset 0 through a small reader pool, a producer writes to it at 200 records/s, a consumer
 * reads a topic without tiered storage from offset 0 (the second control), and timestamp lookups in the remote tier
 * run as the window begins. The agent runs with its defaults (slow from 100 ms) and per-partition labels. Witnesses,
 * independent of the agent: the cgroup's bytes read from the device, the consumers' record counts.
 */
final class RemoteReadScenario {
    static final String TIERED = "tiered";
    static final String LOCAL = "local";
    static final int PARTITIONS = 4;
    private static final int RECORD_BYTES = 1024;

    /** What to run; an arm is FS-throttled or FS-unthrottled, e.g. xfs-throttled. */
    record Options(String arm, FsType fs, boolean throttled, String kafka, long backlogMiB, int readKiBps,
                   int readerThreads, int consumers, int seconds, boolean record) {
        static Options of(String arm, String kafka, long backlogMiB, int readKiBps, int readerThreads, int consumers,
                          int seconds) {
            String[] parts = arm.split("-", 2);
            if (parts.length != 2 || !(parts[1].equals("throttled") || parts[1].equals("unthrottled"))) {
                throw new IllegalArgumentException("an arm is FS-throttled or FS-unthrottled: " + arm);
            }
            return new Options(arm, FsType.of(parts[0]), parts[1].equals("throttled"), kafka, backlogMiB, readKiBps,
                readerThreads, consumers, seconds, false);
        }

        /**
         * Also a JDK Flight Recorder recording of the broker (default settings and the agent's events), for the
         * analyzer: {@link Result#analyzer()}. JFR on JDK 17 retransforms the JDK's I/O classes: a recorded arm is
         * not the unrecorded one's twin for speed, only for what is named.
         */
        Options recorded() {
            return new Options(arm, fs, throttled, kafka, backlogMiB, readKiBps, readerThreads, consumers, seconds, true);
        }
    }

    /** What one run measured. */
    record Result(Options options, String disk, int remoteSegments, double deviceReadMiB, long consumed, long controlConsumed,
                  Map<Integer, Double> readsByPartition, double readP99Ms, List<String> waitLines, List<String> handlerLines,
                  double lookupMs, double handlerRemoteOps, List<String> controlNamingRemote, AnalyzerRun analyzer) {
        /** Slow queue waits that name a remote read that held the pool. */
        long paired() {
            return waitLines.stream().filter(l -> l.contains(": behind remote_read ")).count();
        }

        /** Slow queue waits of reads cancelled unread when their fetch expired. */
        long expired() {
            return waitLines.stream().filter(l -> l.contains(" failed=fetch_expired ")).count();
        }

        String row() {
            return String.format(Locale.ROOT, "| %s | %s | %s | %d | %.1f | %d | %s | %.0f | %d | %d | %d | %s | %.0f | %.0f | %d | %d |",
                options.kafka(), options.arm(), disk, remoteSegments, deviceReadMiB, consumed,
                readsByPartition.entrySet().stream().map(e -> e.getKey() + ":" + e.getValue().longValue())
                    .collect(Collectors.joining(" ")), readP99Ms, waitLines.size(), expired(), paired(),
                waitLines.isEmpty() ? "-" : String.format(Locale.ROOT, "%.0f%%", 100.0 * paired() / waitLines.size()),
                lookupMs, handlerRemoteOps, controlConsumed, controlNamingRemote.size());
        }

        static String header() {
            return "| Kafka | arm | disk | remote segments | MiB read from the device | records read (tiered) | remote_read"
                + " by partition | remote_read p99 ms | remote_queue_wait lines (>= 100 ms) | of them expired unread | naming a read that held the"
                + " pool | share | timestamp lookup ms | remote ops on request handlers in the lookup | records read"
                + " (control topic) | control lines naming a remote op |\n"
                + "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
        }
    }

    private RemoteReadScenario() {
    }

    static Result run(Options o, Path dir) throws Exception {
        Files.createDirectories(dir);
        Path target = Path.of(System.getProperty("stallscope.it.target", "target")).toAbsolutePath();
        KafkaVersion version = KafkaVersion.of(o.kafka());
        int prometheus = FreePorts.next();
        try (RealDisk disk = RealDisk.create(o.fs(), Math.max(1L << 30, (o.backlogMiB() * 3) << 20), target.resolve("realdisk"))) {
            Path remote = disk.mountPoint().resolve("remote");
            Files.createDirectories(remote);
            Path recording = dir.resolve("broker.jfr");
            Files.deleteIfExists(recording);
            BrokerSpec.Builder spec = BrokerSpec.builder(version).name("remote-" + o.arm()).heap("1g")
                .serverProperties(LocalTieredStorage.serverProperties(version, remote))
                // fewer reader threads than consumers: reads queue, as on a broker whose remote store is slow
                .serverProperty("remote.log.reader.threads", Integer.toString(o.readerThreads()))
                .javaAgent(AgentJar.path(), "prometheus=127.0.0.1:" + prometheus
                    + ",topic.labels=true,slow.log.per.minute=100000")
                .launchWrapper(disk.launchWrapper());
            if (o.record()) {
                spec.jvmArg("-XX:StartFlightRecording=settings=default,filename=" + recording + ",dumponexit=true");
            }
            try (LocalKafkaBroker broker = new LocalKafkaBroker(spec.build())) {
                broker.start();
                KafkaClients.createTopic(broker, TIERED, PARTITIONS, LocalTieredStorage.topicConfigs());
                KafkaClients.createTopic(broker, LOCAL, PARTITIONS, Map.of("segment.bytes", Integer.toString(1 << 20)));
                long producedFrom = System.currentTimeMillis();
                int records = (int) (o.backlogMiB() * 1024 * 1024 / RECORD_BYTES);
                KafkaClients.produce(broker, TIERED, records, RECORD_BYTES);
                KafkaClients.produce(broker, LOCAL, records / 4, RECORD_BYTES);
                // every rolled segment copied to the remote tier and deleted locally: one local segment a partition left
                int left = Polling.until(Duration.ofMinutes(4), () -> localSegments(broker.dataDir()), n -> n <= PARTITIONS);
                if (left > PARTITIONS) {
                    throw new IllegalStateException("the tiered topic's rolled segments were not all copied and deleted"
                        + " locally within 4 minutes: " + left + " local segments left");
                }
                List<Path> remoteFiles = files(remote);
                int remoteSegments = (int) remoteFiles.stream().filter(f -> f.getFileName().toString().endsWith(".log")).count();
                PageCache.evict(remoteFiles);
                if (o.throttled()) {
                    disk.limit(IoLimits.NONE.withReadBps(o.readKiBps() * 1024L));
                }
                BlockIoCgroup.IoStat ioBefore = disk.ioStat();
                long logFrom = Files.size(broker.logFile());
                PrometheusScrape before = PrometheusScrape.scrape(prometheus);
                long consumed;
                long controlConsumed;
                double lookupMs;
                PrometheusScrape afterLookup;
                try (LatencyProducer producer = new LatencyProducer(KafkaClients.producerConfig(broker), TIERED, 200);
                     TimedConsumers readers = TimedConsumers.fromOffsetZero(broker, TIERED, o.consumers());
                     TimedConsumers control = TimedConsumers.fromOffsetZero(broker, LOCAL, 1)) {
                    long lookupStart = System.nanoTime();
                    lookUpTimestamps(broker, producedFrom);
                    lookupMs = (System.nanoTime() - lookupStart) / 1e6;
                    afterLookup = PrometheusScrape.scrape(prometheus);
                    Thread.sleep(TimeUnit.SECONDS.toMillis(o.seconds()));
                    consumed = readers.stop();
                    controlConsumed = control.stop();
                }
                Thread.sleep(2_000); // a read taken up last ends, and its queue wait's line is written
                BlockIoCgroup.IoStat ioAfter = disk.ioStat();
                PrometheusScrape after = PrometheusScrape.scrape(prometheus);
                List<String> lines = LogLines.since(broker.logFile(), logFrom);
                broker.stop();
                Files.writeString(dir.resolve("slow-lines.txt"), lines.stream().filter(l -> l.contains("slow op="))
                    .collect(Collectors.joining("\n")) + "\n");
                List<String> waits = lines.stream().filter(l -> l.contains("slow op=remote_queue_wait ")).toList();
                List<String> onHandlers = lines.stream()
                    .filter(l -> l.contains("slow op=remote_") && l.contains(" role=request_handler ")).toList();
                List<String> controlNamingRemote = lines.stream()
                    .filter(l -> l.contains(" topic=" + LOCAL + " ") && l.contains(": behind remote_")).toList();
                double handlerOps = remoteOpsOnHandlers(afterLookup, before);
                AnalyzerRun analyzer = o.record() ? AnalyzerRun.report(recording, dir) : null;
                if (analyzer != null) {
                    Files.writeString(dir.resolve("analyzer-report.txt"), analyzer.text);
                }
                return new Result(o, disk.describe(), remoteSegments,
                    (ioAfter.readBytes() - ioBefore.readBytes()) / 1048576.0, consumed, controlConsumed,
                    readsByPartition(after, before), after.quantileMsSince(before, "remote_read", "other", 0.99), waits,
                    onHandlers, lookupMs, handlerOps, controlNamingRemote, analyzer);
            }
        }
    }

    /** The time of the backlog's first record on every tiered partition: its first segment, in the remote tier. */
    private static void lookUpTimestamps(LocalKafkaBroker broker, long producedFrom) throws Exception {
        Map<TopicPartition, OffsetSpec> specs = new HashMap<>();
        IntStream.range(0, PARTITIONS).forEach(p -> specs.put(new TopicPartition(TIERED, p), OffsetSpec.forTimestamp(producedFrom)));
        try (Admin admin = KafkaClients.admin(broker)) {
            admin.listOffsets(specs).all().get(2, TimeUnit.MINUTES);
        }
    }

    private static double remoteOpsOnHandlers(PrometheusScrape after, PrometheusScrape before) {
        return Stream.of("remote_fetch", "remote_fetch_index", "remote_index_load")
            .mapToDouble(op -> after.countSince(before, op, "request_handler")).sum();
    }

    /** remote_read counts in the window by partition of the tiered topic (topic.labels=true). */
    private static Map<Integer, Double> readsByPartition(PrometheusScrape after, PrometheusScrape before) {
        Map<Integer, Double> out = new TreeMap<>();
        String name = "stallscope_op_topic_seconds_count";
        for (int p = 0; p < PARTITIONS; p++) {
            Map<String, String> labels = Map.of("op", "remote_read", "topic", TIERED, "partition", Integer.toString(p));
            double n = after.sum(name, labels) - (before.has(name) ? before.sum(name, labels) : 0);
            out.put(p, n);
        }
        return out;
    }

    private static int localSegments(Path dataDir) throws IOException {
        return PartitionFiles.of(dataDir, TIERED, ".log").size();
    }

    private static List<Path> files(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).sorted().toList();
        }
    }
}
