package io.stallscope.it.realdisk;

import io.stallscope.it.agent.AgentJar;
import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.FreePorts;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.LocalKafkaBroker;
import io.stallscope.it.broker.PrometheusScrape;
import io.stallscope.it.slowdisk.PageCache;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The seed stalls made by the kernel (issue 16): Kafka 3.6.2 with the agent, its log dir on XFS (and for the
 * roll also ext4) on a loop device, slowed at the block layer by the cgroup I/O controller, and what the agent's own metrics say the
 * kernel did. Each test runs the same load twice on one broker, without and with the limit (a limit takes
 * effect at once), so what changes between the two is the throttle, not the machine; the thresholds come from
 * the configured limits. The broker's KRaft metadata log is kept off the disk: it fsyncs every batch.
 */
class RealDiskSeedsIT {
    private static final String KAFKA = "3.6.2";
    private static final Path DIR = Path.of(System.getProperty("stallscope.it.target", "target"), "realdisk-seeds").toAbsolutePath();
    /** As the demo's disk: every throttled write waits 1/20 s once the cgroup's budget is spent. */
    private static final int WRITE_IOPS = 20;
    private static final double READ_MIB_PER_SECOND = 8;

    @BeforeEach
    void requireRealDisk() {
        RealDiskRequirement.assumeAvailable();
    }

    /**
     * The roll spike and index resize at roll: 1 MiB segments, 16 MiB produced without a limit and 16 MiB at
     * 20 write IOPS. On 3.6.2 the producer-state snapshot is fsynced on the request handler inside the roll
     * (under the partition lock), the rolled segment by the scheduler's flush-log job: both must wait for the
     * throttled writes, half a throttle period at the least (the cgroup may let a write or two through at
     * once), and their median must be 4 times (two histogram buckets) what it is without the limit, so that
     * the throttle, not this shared machine's own disk, makes them slow. Measured 17:02 and 17:26 UTC:
     * snapshot writes p50 <= 10 ms without the limit, <= 500 ms at 20 IOPS (they queue behind the rolled
     * segments' flushes, 1 MiB each, in the same cgroup); rolled-segment flushes p50 <= 25-50 ms and <= 2.5 s
     * (without the limit 55% took over 25 ms at load average 6: an absolute bar there would be flaky);
     * index resize p99 <= 5-50 ms without the limit and <= 5-10 ms with it: the write limit does not reach it.
     */
    @ParameterizedTest
    @EnumSource(FsType.class)
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void rollFsyncsWaitForTheWriteIopsAndIndexResizeIsTimedAtRoll(FsType fs) throws Exception {
        Path dir = DIR.resolve("roll-" + fs.kernelName());
        double writeMs = 1000.0 / WRITE_IOPS;
        double halfWriteMs = writeMs / 2;
        try (RealDisk disk = RealDisk.create(fs, 1L << 30, DIR.resolve("disk"));
             SeedBroker b = SeedBroker.start(disk, dir, "roll-" + fs.kernelName())) {
            System.out.println("roll spike: disk " + disk.describe());
            KafkaClients.createTopic(b.broker, "roll", 1, KafkaClients.SMALL_SEGMENTS);
            Phase free = Phase.run(b, "roll", 16);
            System.out.println("roll spike on " + fs.kernelName() + ", no limit: " + free.describe());
            disk.limit(IoLimits.NONE.withWriteIops(WRITE_IOPS));
            System.out.println("roll spike: disk " + disk.describe());
            Phase slow = Phase.run(b, "roll", 16);
            System.out.println("roll spike on " + fs.kernelName() + ", " + disk.limits().describe() + ": " + slow.describe());
            assertThat(slow.rolls()).as("rolls on the request handlers at 20 write IOPS").isGreaterThanOrEqualTo(10);
            // the snapshot fsync, inline in the roll on 3.6.2
            assertThat(slow.shareAbove("snapshot_write", "request_handler", halfWriteMs))
                .as("share of snapshot writes (with their fsync) over %.0f ms at %d write IOPS; %s", halfWriteMs, WRITE_IOPS, slow.describe())
                .isGreaterThanOrEqualTo(0.5);
            assertThat(slow.quantileMs("snapshot_write", "request_handler", 0.5))
                .as("median snapshot write at %d write IOPS, ms, against 4x without the limit; %s", WRITE_IOPS, free.describe())
                .isGreaterThanOrEqualTo(4 * free.quantileMs("snapshot_write", "request_handler", 0.5));
            assertThat(slow.quantileMs("log_roll", "request_handler", 1.0)).as("longest roll under the partition lock, ms (bucket bound)")
                .isGreaterThanOrEqualTo(writeMs);
            // the rolled segment's fsync on the scheduler (flush-log)
            assertThat(slow.shareAbove("segment_flush", "scheduler", halfWriteMs))
                .as("share of rolled-segment flushes over %.0f ms; %s", halfWriteMs, slow.describe()).isGreaterThanOrEqualTo(0.5);
            assertThat(slow.quantileMs("segment_flush", "scheduler", 0.5))
                .as("median rolled-segment flush at %d write IOPS, ms, against 4x without the limit; %s", WRITE_IOPS, free.describe())
                .isGreaterThanOrEqualTo(4 * free.quantileMs("segment_flush", "scheduler", 0.5));
            // index resize: timed on the request handler at every roll (the offset and time index trims)
            assertThat(slow.count("index_resize", "request_handler")).as("index resizes at roll; %s", slow.describe())
                .isGreaterThanOrEqualTo(slow.rolls());
            System.out.printf(Locale.ROOT, "index_resize on request handlers (" + fs.kernelName() + "): without the limit p99 <= %.2f ms (%d), at %d write IOPS"
                    + " p99 <= %.2f ms, max <= %.2f ms (%d)%n", free.quantileMs("index_resize", "request_handler", 0.99),
                (long) free.count("index_resize", "request_handler"), WRITE_IOPS, slow.quantileMs("index_resize", "request_handler", 0.99),
                slow.quantileMs("index_resize", "request_handler", 1.0), (long) slow.count("index_resize", "request_handler"));
        }
    }

    /**
     * KAFKA-7504 on the real disk: a 64 MiB backlog in rolled 8 MiB segments, evicted, cold reads at 8 MiB/s;
     * a consumer reads it from offset 0, then again at once (warm). The network thread's sendfile
     * (transfer_to) is where the kernel reads the cold pages: over the cold pass it must spend at least half the
     * time the throttle needs for the rolled bytes, and the warm pass a small part of that.
     */
    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void coldCatchUpWaitsOnTheNetworkThreadsSendfile() throws Exception {
        Path dir = DIR.resolve("catch-up");
        long bps = (long) (READ_MIB_PER_SECOND * 1048576);
        try (RealDisk disk = RealDisk.create(FsType.XFS, 1L << 30, DIR.resolve("disk"));
             SeedBroker b = SeedBroker.start(disk, dir, "catchup")) {
            KafkaClients.createTopic(b.broker, "backlog", 1, Map.of("segment.bytes", Integer.toString(8 << 20)));
            KafkaClients.producerPerformance(b.broker, "backlog", 64 * 1024, 1024, -1,
                Map.of("batch.size", "262144", "linger.ms", "20"), Duration.ofMinutes(2));
            List<Path> rolled = rolledSegments(b.broker.dataDir().resolve("backlog-0"));
            long rolledBytes = 0;
            for (Path p : rolled) {
                rolledBytes += Files.size(p);
            }
            disk.limit(IoLimits.readMiBps(READ_MIB_PER_SECOND));
            System.out.println("catch-up: disk " + disk.describe());
            PageCache.evict(rolled);
            assertThat(PageCache.residentFraction(rolled)).as("rolled segments cold at the start").isLessThan(0.05);
            double throttleSeconds = rolledBytes / (double) bps;

            Pass cold = Pass.run(b, disk, "backlog");
            Pass warm = Pass.run(b, disk, "backlog");
            System.out.printf(Locale.ROOT, "catch-up of %d rolled segments (%.1f MiB; %.1f s at %.0f MiB/s): cold %s; warm %s%n",
                rolled.size(), rolledBytes / 1048576.0, throttleSeconds, READ_MIB_PER_SECOND, cold.describe(), warm.describe());
            assertThat(cold.readBytes()).as("bytes the broker read through the throttle in the cold pass").isGreaterThanOrEqualTo((long) (0.8 * rolledBytes));
            assertThat(cold.seconds()).as("cold pass, s").isGreaterThanOrEqualTo(0.8 * throttleSeconds);
            assertThat(cold.networkSeconds()).as("time in transfer_to on the network thread in the cold pass, s; " + cold.describe())
                .isGreaterThanOrEqualTo(0.5 * throttleSeconds);
            assertThat(warm.networkSeconds()).as("in the warm pass, s; " + warm.describe()).isLessThan(0.2 * cold.networkSeconds());
            assertThat(cold.p99Ms()).as("transfer_to p99 on the network thread, cold over warm").isGreaterThan(warm.p99Ms());
        }
    }

    private static List<Path> rolledSegments(Path partitionDir) throws Exception {
        List<Path> logs = new ArrayList<>();
        try (Stream<Path> files = Files.list(partitionDir)) {
            files.filter(f -> f.getFileName().toString().endsWith(".log")).forEach(logs::add);
        }
        logs.sort(Comparator.comparing(p -> p.getFileName().toString()));
        assertThat(logs).as("segments in " + partitionDir).hasSizeGreaterThan(2);
        return logs.subList(0, logs.size() - 1); // the newest is the active one
    }

    /** Kafka with the agent, its log dir on the real disk, started inside the disk's cgroup. */
    private static final class SeedBroker implements AutoCloseable {
        final LocalKafkaBroker broker;
        final int prometheus;
        private final RealDisk disk;

        private SeedBroker(LocalKafkaBroker broker, int prometheus, RealDisk disk) {
            this.broker = broker;
            this.prometheus = prometheus;
            this.disk = disk;
        }

        static SeedBroker start(RealDisk disk, Path dir, String name) throws Exception {
            Files.createDirectories(dir);
            Path metadata = Files.createTempDirectory(dir, "metadata");
            int prometheus = FreePorts.next();
            BrokerSpec spec = BrokerSpec.builder(KAFKA).name("seeds-" + name).heap("1g")
                .dataDir(disk.mountPoint().resolve("kafka")).launchWrapper(disk.launchWrapper())
                .serverProperty("metadata.log.dir", metadata.toString())
                .serverProperty("num.network.threads", "1")
                .javaAgent(AgentJar.path(), "prometheus=127.0.0.1:" + prometheus)
                .build();
            LocalKafkaBroker broker = new LocalKafkaBroker(spec);
            try {
                broker.start();
            } catch (RuntimeException e) {
                broker.close();
                throw e;
            }
            return new SeedBroker(broker, prometheus, disk);
        }

        PrometheusScrape scrape() throws Exception {
            return PrometheusScrape.scrape(prometheus);
        }

        @Override
        public void close() {
            // the checks are done: the clean shutdown's flush of every log need not wait for the throttle
            // (at 20 write IOPS it took 12-16 s per broker, more than the measured phase)
            try {
                disk.limit(IoLimits.NONE);
            } finally {
                broker.close();
            }
        }
    }

    /** One burst of produce that rolls segments, and the agent's histograms over it (flushes included). */
    private record Phase(PrometheusScrape before, PrometheusScrape after) {
        static Phase run(SeedBroker b, String topic, int mib) throws Exception {
            PrometheusScrape before = b.scrape();
            KafkaClients.produce(b.broker, topic, mib * 1024, 1024);
            // the scheduler's flush-log jobs run after the rolls: wait until each roll's flush is timed
            PrometheusScrape after = b.scrape();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (after.countSince(before, "segment_flush", "scheduler") < after.countSince(before, "log_roll", "request_handler")
                && System.nanoTime() < deadline) {
                TimeUnit.MILLISECONDS.sleep(500);
                after = b.scrape();
            }
            return new Phase(before, after);
        }

        double rolls() {
            return count("log_roll", "request_handler");
        }

        double count(String op, String role) {
            return after.countSince(before, op, role);
        }

        double quantileMs(String op, String role, double q) {
            return after.quantileMsSince(before, op, role, q);
        }

        /** The share of an op's runs in this phase that took longer than {@code ms} (a histogram bucket bound). */
        double shareAbove(String op, String role, double ms) {
            double n = count(op, role);
            return n == 0 ? 0 : after.countAboveSince(before, op, role, ms) / n;
        }

        String describe() {
            StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%.0f rolls", rolls()));
            for (String[] op : new String[][] {{"log_roll", "request_handler"}, {"snapshot_write", "request_handler"},
                {"segment_flush", "scheduler"}, {"index_resize", "request_handler"}}) {
                sb.append(String.format(Locale.ROOT, "; %s %s: %.0f, p50 <= %.2f ms, max <= %.2f ms, over 25 ms %.0f%%", op[0], op[1],
                    count(op[0], op[1]), quantileMs(op[0], op[1], 0.5), quantileMs(op[0], op[1], 1.0),
                    100 * shareAbove(op[0], op[1], 25)));
            }
            return sb.toString();
        }
    }

    /** One consumer pass over the backlog from offset 0: its time, the disk's reads, the network thread's sendfile. */
    private record Pass(double seconds, long readBytes, PrometheusScrape before, PrometheusScrape after) {
        static Pass run(SeedBroker b, RealDisk disk, String topic) throws Exception {
            PrometheusScrape before = b.scrape();
            long read = disk.ioStat().readBytes();
            long t0 = System.nanoTime();
            long n = KafkaClients.consumeAll(b.broker, topic, true, Duration.ofMinutes(2));
            double seconds = (System.nanoTime() - t0) / 1e9;
            assertThat(n).as("records read back").isEqualTo(64 * 1024);
            return new Pass(seconds, disk.ioStat().readBytes() - read, before, b.scrape());
        }

        double networkSeconds() {
            Map<String, String> labels = Map.of("op", "transfer_to", "role", "network");
            return after.sum("stallscope_op_seconds_sum", labels) - before.sum("stallscope_op_seconds_sum", labels);
        }

        double p99Ms() {
            return after.quantileMsSince(before, "transfer_to", "network", 0.99);
        }

        String describe() {
            return String.format(Locale.ROOT, "%.1f s, %.1f MiB read through the throttle; network transfer_to %.0f calls, %.2f s in all,"
                    + " p99 <= %.1f ms, max <= %.1f ms", seconds, readBytes / 1048576.0, after.countSince(before, "transfer_to", "network"),
                networkSeconds(), p99Ms(), after.quantileMsSince(before, "transfer_to", "network", 1.0));
        }
    }
}
