package io.stallscope.it.realdisk;

import io.stallscope.it.agent.AgentJar;
import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.FreePorts;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.LocalKafkaBroker;
import io.stallscope.it.broker.LogLines;
import io.stallscope.it.broker.PartitionFiles;
import io.stallscope.it.broker.PrometheusScrape;
import io.stallscope.it.examples.Examples;
import io.stallscope.it.mitigate.LatencyProducer;
import io.stallscope.it.slowdisk.PageCache;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Time to safepoint from page faults in cold memory-mapped indexes, on a real slow disk (issue 54). A fresh loop-device
 * file system (XFS or ext4) with a common disk's 128 KiB read-ahead; a broker with the agent (observing, or with a
 * mitigation); a backlog in small segments over 8 partitions; a clean restart (indexes are mapped lazily, at their
 * first use); then the logs and indexes evicted, reads throttled by the cgroup I/O controller, and for the window:
 * {@link ColdReaders} fetching random old offsets and looking up random timestamps, a producer at 200 records/s to
 * another topic, the JVM's guaranteed safepoint every 100 ms and a thread dump (SIGQUIT) every second as steady
 * sources of safepoints. Witnesses, independent of the agent: the JVM's -Xlog:safepoint, and its SafepointTimeout
 * naming the threads a sync over 50 ms waited for. The warm control: every index loaded and locked in memory first.
 */
final class ColdIndexScenario {
    static final String COLD = "cold";
    static final String LIVE = "live";
    static final int PARTITIONS = 8;
    /** A slow line from this time to safepoint, and the witnesses' bar. */
    static final double SLOW_MS = 50;
    /** When the JVM names the threads a sync waits for; lower to find what holds the short ones up. */
    private static final int TIMEOUT_MS = Integer.getInteger("stallscope.bench.safepoint.timeout.ms", (int) SLOW_MS);

    /** What to run; an arm's name is FS-cold or FS-warm[+MITIGATION], e.g. xfs-cold+index-warm. */
    record Options(String arm, FsType fs, boolean warm, String mitigation, String kafka, long backlogMiB, long segmentBytes,
                   int readKiBps, int seconds, boolean record, String safepointTiming) {
        static Options of(String arm, String kafka, long backlogMiB, long segmentBytes, int readKiBps, int seconds) {
            String[] parts = arm.split("\\+", 2);
            String[] fsState = parts[0].split("-", 2);
            if (fsState.length != 2 || !(fsState[1].equals("cold") || fsState[1].equals("warm"))) {
                throw new IllegalArgumentException("an arm is FS-cold or FS-warm[+MITIGATION]: " + arm);
            }
            return new Options(arm, FsType.of(fsState[0]), fsState[1].equals("warm"), parts.length == 2 ? parts[1] : "",
                kafka, backlogMiB, segmentBytes, readKiBps, seconds, false, "auto");
        }

        /**
         * Also a JDK Flight Recorder recording of the restarted broker (default settings, the safepoint events of
         * examples/jfr/safepoints.jfc, the agent's events), for the analyzer: {@link Result#recording()}.
         */
        Options recorded() {
            return new Options(arm, fs, warm, mitigation, kafka, backlogMiB, segmentBytes, readKiBps, seconds, true,
                safepointTiming);
        }

        /** The agent's safepoint.timing (auto: JFR's events when the broker records, else HotSpot's counters on JDK 17). */
        Options safepointTiming(String how) {
            return new Options(arm, fs, warm, mitigation, kafka, backlogMiB, segmentBytes, readKiBps, seconds, record, how);
        }
    }

    /** What one run measured; times in ms. */
    record Result(Options options, String disk, double indexResidentAtStart, SafepointLog safepoints, String jvmNamed,
                  List<String> slowLines, double producerP999, double producerMax, ColdReaders.Counts reads,
                  double lookupCount, double lookupMaxMs, String mitigationEvents, Path recording) {
        /** The agent's slow safepoint lines that name an index op (lookup, or an index's last entry read at open). */
        long namingLookup() {
            return slowLines.stream().filter(l -> l.contains(": behind index_lookup")).count();
        }

        String row(int round) {
            return String.format(Locale.ROOT, "| %d | %s | %s | %.2f | %d | %.1f | %.1f | %.1f | %d | %s | %d | %d | %.1f | %.1f | %d / %d | %.0f / %.1f | %s |",
                round, options.arm(), disk, indexResidentAtStart, safepoints.count(), safepoints.quantileMs(0.5),
                safepoints.quantileMs(0.99), safepoints.quantileMs(1), safepoints.atLeastMs(SLOW_MS), jvmNamed, slowLines.size(),
                namingLookup(), producerP999, producerMax, reads.fetches(), reads.timeLookups(), lookupCount, lookupMaxMs,
                mitigationEvents);
        }

        static String header() {
            return "| round | arm | disk | index pages resident at start | safepoints | TTSP p50 ms | p99 ms | max ms | >= 50 ms"
                + " (witness) | threads the JVM named (SafepointTimeout) | agent slow safepoint lines | naming index_lookup"
                + " | producer p99.9 ms | producer max ms | fetches / time lookups | index_lookup n / max ms | mitigation events |\n"
                + "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
        }
    }

    /** What an operator adds to a recording for the analyzer to name slow safepoints (examples/jfr). */
    static final Path SAFEPOINTS_JFC = Examples.file("jfr/safepoints.jfc").toAbsolutePath();

    private ColdIndexScenario() {
    }

    static Result run(Options o, Path dir) throws Exception {
        Files.createDirectories(dir);
        Path target = Path.of(System.getProperty("stallscope.it.target", "target")).toAbsolutePath();
        Path safepointLog = dir.resolve("safepoint.log");
        Files.deleteIfExists(safepointLog);
        int prometheus = FreePorts.next();
        try (RealDisk disk = RealDisk.create(o.fs(), Math.max(1L << 30, (o.backlogMiB() * 2) << 20), target.resolve("realdisk"))) {
            disk.readAheadKiB(128);
            BrokerSpec.Builder spec = BrokerSpec.builder(o.kafka()).name("safepoint-" + o.arm().replace('+', '-'))
                .dataDir(disk.mountPoint().resolve("kafka")).heap("1g")
                .javaAgent(AgentJar.path(), "prometheus=127.0.0.1:" + prometheus + ",slow.threshold.safepoint_sync="
                    + (int) SLOW_MS + "ms,slow.log.per.minute=10000,safepoint.timing=" + o.safepointTiming()
                    + (o.mitigation().isEmpty() ? "" : ",mitigate=" + o.mitigation()))
                .jvmArg(SafepointLog.jvmOption(safepointLog))
                .jvmArg("-XX:+UnlockDiagnosticVMOptions").jvmArg("-XX:GuaranteedSafepointInterval=100")
                // the JVM's own naming of the threads a safepoint waited for, on the broker's stdout
                .jvmArg("-XX:+SafepointTimeout").jvmArg("-XX:SafepointTimeoutDelay=" + TIMEOUT_MS)
                .launchWrapper(disk.launchWrapper());
            Path recording = dir.resolve("broker.jfr");
            Files.deleteIfExists(recording);
            if (o.record()) {
                // written when the broker stops; the restart's first JVM writes it too, and the second overwrites it
                spec.jvmArg("-XX:StartFlightRecording=settings=default,settings=" + SAFEPOINTS_JFC + ",filename=" + recording
                    + ",dumponexit=true");
            }
            try (LocalKafkaBroker broker = new LocalKafkaBroker(spec.build())) {
                broker.start();
                KafkaClients.createTopic(broker, COLD, PARTITIONS, Map.of("segment.bytes", Long.toString(o.segmentBytes())));
                KafkaClients.createTopic(broker, LIVE, 1, Map.of());
                long producedFrom = System.currentTimeMillis();
                KafkaClients.producerPerformance(broker, COLD, o.backlogMiB() * 1024, 1024, -1,
                    Map.of("batch.size", "65536", "linger.ms", "5"), Duration.ofMinutes(15));
                long producedTo = System.currentTimeMillis();
                broker.restart(); // a clean restart: the old segments' indexes are mapped again only when first used
                List<Path> indexes = files(broker.dataDir(), ".index", ".timeindex");
                PageCache.evict(files(broker.dataDir(), ".log"));
                PageCache.evict(indexes);
                AutoCloseable pinned = o.warm() ? PageCache.pin(indexes) : () -> { };
                try (pinned) {
                    disk.limit(IoLimits.NONE.withReadBps(o.readKiBps() * 1024L));
                    double resident = PageCache.residentFraction(indexes);
                    long logFrom = Files.size(broker.logFile());
                    long stdoutFrom = Files.size(broker.stdoutFile());
                    PrometheusScrape before = PrometheusScrape.scrape(prometheus);
                    Instant windowStart;
                    Instant windowEnd;
                    double p999;
                    double max;
                    ColdReaders.Counts counts;
                    try (LatencyProducer producer = new LatencyProducer(KafkaClients.producerConfig(broker), LIVE, 200);
                         ColdReaders readers = ColdReaders.start(broker, COLD, PARTITIONS, producedFrom, producedTo);
                         ThreadDumps dumps = ThreadDumps.every(broker.pid(), Duration.ofSeconds(1))) {
                        Thread.sleep(5_000); // the producer connected, the readers' first fetches under way
                        windowStart = Instant.now();
                        long from = System.nanoTime();
                        Thread.sleep(o.seconds() * 1000L);
                        long to = System.nanoTime();
                        windowEnd = Instant.now();
                        p999 = producer.quantileMs(from, to, 0.999);
                        max = producer.quantileMs(from, to, 1);
                        counts = readers.counts();
                    }
                    Thread.sleep(3_000); // the agent writes a safepoint's line about a second after it
                    PrometheusScrape after = PrometheusScrape.scrape(prometheus);
                    List<String> slow = LogLines.since(broker.logFile(), logFrom).stream()
                        .filter(l -> l.contains("slow op=safepoint_sync")).toList();
                    String jvmNamed = SafepointTimeouts.named(LogLines.since(broker.stdoutFile(), stdoutFrom));
                    broker.stop();
                    Files.writeString(dir.resolve("slow-lines.txt"), String.join("\n", slow) + "\n");
                    return new Result(o, disk.describe() + ", read-ahead 128 KiB", resident,
                        SafepointLog.read(safepointLog).between(windowStart, windowEnd), jvmNamed, slow, p999, max, counts,
                        after.countSince(before, "index_lookup", "request_handler"),
                        after.quantileMsSince(before, "index_lookup", "request_handler", 1.0),
                        o.mitigation().isEmpty() ? "-" : mitigationEvents(o.mitigation(), after, before),
                        o.record() ? recording : null);
                }
            }
        }
    }

    /** "warmed 138, timed_out 2": what the arm's mitigation counted in the window. */
    private static String mitigationEvents(String mitigation, PrometheusScrape after, PrometheusScrape before) {
        StringBuilder sb = new StringBuilder();
        for (String event : after.labelValues("stallscope_mitigation_events_total", "event")) {
            long n = (long) (after.event(mitigation, event) - before.event(mitigation, event));
            if (n > 0) {
                sb.append(sb.length() == 0 ? "" : ", ").append(event).append(' ').append(n);
            }
        }
        return sb.length() == 0 ? "none" : sb.toString();
    }

    private static List<Path> files(Path dataDir, String... suffixes) throws IOException {
        return PartitionFiles.of(dataDir, COLD, suffixes);
    }
}
