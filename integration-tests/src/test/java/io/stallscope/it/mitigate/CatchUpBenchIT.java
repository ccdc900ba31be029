package io.stallscope.it.mitigate;

import io.stallscope.it.agent.AgentJar;
import io.stallscope.it.bench.LoadAverage;

import io.stallscope.it.broker.PrometheusScrape;
import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.FreePorts;
import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.KafkaJdks;
import io.stallscope.it.broker.LocalKafkaBroker;
import io.stallscope.it.realdisk.FsType;
import io.stallscope.it.realdisk.IoLimits;
import io.stallscope.it.slowdisk.PageCache;
import io.stallscope.it.slowdisk.SlowDisk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Experiment, not a CI test (-Dstallscope.bench=true; see docs/lab/mitigations.md): a consumer catching up
 * on a backlog (1 GiB over 8 partitions) while a steady producer writes to another topic, on one Kafka
 * 3.6.2 broker with one network thread (so the two clients share it, as many clients do on a busy
 * broker). Three arms, rotated each round: the backlog's rolled segments cold without prefetch ("off"),
 * cold with mitigate=prefetch ("on"; "on+wait=250ms" with that mitigate.prefetch.max.wait), and a control with the whole backlog in the page cache and no
 * prefetch ("warm": no disk delay at all, so what is left is what the catch-up costs the producer on this
 * machine's CPU). Each partition's active segment is resident in every arm, as in a live partition.
 * Simulated: a spinning disk for the backlog's segments (the LD_PRELOAD shim): readahead off, and every
 * sendfile/pread that reads pages not in the page cache waits 8 ms per cold extent (a seek) plus the
 * transfer of the cold bytes at 125 MB/s. The catch-up consumer runs as a JVM of its own at nice 19
 * (-Dstallscope.bench.consumer=process, the default), standing in for a consumer on another machine, or
 * in the test JVM next to the producer (=test-jvm, the earlier method). Reported per run: the steady
 * producer's p99.9 during the catch-up over its p99.9 just before, the agent's p99 of transfer_to on the
 * network thread, and where the time went: Kafka's own request metrics for Produce, GC pauses of the
 * broker and the test JVM, CPU use of each process, the agent's ops by thread role. Optional arm
 * "warm-no-agent" (-Dstallscope.bench.arms=off,on,warm,warm-no-agent): the warm control with the agent
 * detached for the run (Kafka's own code restored, no metrics endpoint), to show what the agent itself
 * costs. The state of the kernel's DAMON reclaimer (which takes back page cache on this VM) is recorded
 * at the start and the end of the run: a control with it paused is run from the shell, not by the bench.
 * -Dstallscope.bench.disk=xfs|ext4 ({@link BenchDisk}, root) puts the broker's log dir on a real loop-device
 * file system whose cold reads the cgroup I/O controller throttles (the demo's 25 MiB/s,
 * -Dstallscope.bench.disk.read.mibps), with the kernel's own readahead, and no shim: the last column then says
 * what the broker read through the throttle during the catch-up.
 */
@EnabledIfSystemProperty(named = "stallscope.bench", matches = "true")
class CatchUpBenchIT {
    private static final String BACKLOG = "backlog";
    private static final String STEADY = "steady";
    private static final int ROUNDS = Integer.getInteger("stallscope.bench.rounds", 5);
    // Unmeasured time after the attach and the producer's start: the broker's first young collection
    // after an attach took 15-25 ms in 3 of 4 runs (13:00 UTC; the others 6-13 ms) and came 1-5 s after
    // it: inside the earlier 3-s settle's "before" window in some runs and not in others.
    private static final int SETTLE_SECONDS = Integer.getInteger("stallscope.bench.settle.seconds", 10);
    // The "before" window: at 500 records/s a p99.9 over 15 s is the 8th-worst record, decided by whether
    // a young collection (6-25 ms) fell into the window (6.5-16 ms). Over 30 s it is the 15th-worst, and
    // the summary adds a p99.9 over every round's records pooled; 0-3 collections still fall into 30 s.
    private static final int BEFORE_SECONDS = Integer.getInteger("stallscope.bench.before.seconds", 30);
    private static final long BACKLOG_RECORDS = Long.getLong("stallscope.bench.backlog.records", 1_048_576L);
    private static final int PARTITIONS = Integer.getInteger("stallscope.bench.partitions", 8);
    private static final List<String> ARMS = List.of(System.getProperty("stallscope.bench.arms", "off,on,warm").split(","));
    private static final boolean CONSUMER_PROCESS = !"test-jvm".equals(System.getProperty("stallscope.bench.consumer", "process"));
    private static final int NICE = Integer.getInteger("stallscope.bench.consumer.nice", 19);
    private static final int RATE = 500;
    /** More agent options for the "on" arm, e.g. -Dstallscope.bench.prefetch.options=mitigate.prefetch.max.wait=1s. */
    private static final String PREFETCH_OPTIONS = System.getProperty("stallscope.bench.prefetch.options", "");
    /** The real file system of -Dstallscope.bench.disk, or null for the shim. */
    private static final FsType REAL_FS = BenchDisk.selected();

    /** What one run measured. */
    record Run(int round, String arm, double p999Before, double p999During, double p99Before, double p99During,
               double catchUpSeconds, double warmedMiB, double networkP99, double networkCount, double residentAtStart,
               Map<String, BrokerJmx.Reading[]> produce, String brokerGcBefore, String brokerGcDuring,
               String testGcBefore, String testGcDuring, double[] cpuBefore, double[] cpuDuring, List<String> ops,
               double networkOver10ms, double networkMax, String networkCold, List<String> slowest, long startNanos,
               long beforeStartNanos, long[] latenciesBefore, long[] latenciesDuring) {
        double ratio() {
            return p999During / p999Before;
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.MINUTES)
    void produceLatencyDuringCatchUp() throws Exception {
        Path dir = Path.of(System.getProperty("stallscope.it.target", "target"), "bench").toAbsolutePath();
        Files.createDirectories(dir);
        String name = REAL_FS == null ? "catch-up" : "catch-up-" + REAL_FS.kernelName();
        // the shim's log (one short line per sendfile/pread of the backlog, a few hundred a second) says
        // which thread met cold pages: the network thread, or the handlers' warm-up
        SlowDisk disk = REAL_FS != null ? null
            : SlowDisk.logTo(dir.resolve("catch-up-shim.log")).spinningDiskReads("/" + BACKLOG + "-[0-9]+/[0-9]+\\.log$");
        BenchDisk real = REAL_FS == null ? null
            : BenchDisk.create(REAL_FS, IoLimits.readMiBps(BenchDisk.READ_MIB_PER_SECOND), dir.resolve("realdisk"));
        try (real) {
            produceLatencyDuringCatchUp(dir, name, disk, real);
        }
    }

    private void produceLatencyDuringCatchUp(Path dir, String name, SlowDisk disk, BenchDisk real) throws Exception {
        MitigatedBroker mb = new MitigatedBroker("3.6.2", "catchup", "", disk);
        int jmxPort = FreePorts.next();
        BrokerSpec.Builder builder = mb.spec.toBuilder();
        if (real != null) {
            real.applyTo(builder);
        }
        BrokerSpec spec = builder.serverProperty("num.network.threads", "1").heap("1g")
            .jvmArgs(BrokerJmx.jvmArgs(jmxPort)).jvmArg("-Xlog:gc:file=" + dir.toAbsolutePath().resolve(name + "-broker-gc.log"))
            // safepoints with the monotonic clock (System.nanoTime, as the records' send times): a pause
            // that is not GC, or a slow time to safepoint, shows here and not in the GC log
            .jvmArg("-Xlog:safepoint:file=" + dir.toAbsolutePath().resolve(name + "-broker-safepoint.log") + ":timenanos,uptime")
            .build();
        Path out = dir.resolve(name + ".md");
        Path diag = dir.resolve(name + "-diagnostics.md");
        String damonAtStart = Damon.describe();
        Files.writeString(out, "disk: " + (real == null ? "shim (LD_PRELOAD): the backlog's cold reads as a 7200 rpm disk"
            + " (8 ms per cold extent, 125 MB/s), readahead off" : real.describe()) + "\n\n" + "load average at start: " + LoadAverage.now() + "; " + damonAtStart + "; catch-up consumer: "
            + (CONSUMER_PROCESS ? "own JVM at nice " + NICE : "in the test JVM") + "; " + ROUNDS + " rounds, settle "
            + SETTLE_SECONDS + " s, before " + BEFORE_SECONDS + " s"
            + (PREFETCH_OPTIONS.isEmpty() ? "" : "; prefetch options " + PREFETCH_OPTIONS) + "\n\n"
            + "| round | arm | p99.9 before ms | p99.9 during ms | during/before | p99 before ms | p99 during ms"
            + " | catch-up s | warmed MiB | network transfer_to p99 ms (count) | network transfer_to > 10 ms (max ms)"
            + (real == null ? " | network cold calls / cold MiB / shim delay s |" : " | MiB read through the throttle during the catch-up |")
            + "\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        Files.writeString(diag, "Produce on the broker (Kafka's RequestMetrics, mean ms over the window; p99/p99.9 from"
            + " Kafka's decaying reservoir at the window's end); GC pauses: count / total ms / max ms; CPU: % of one core"
            + " (machine: of 200)\n\n| round | arm | window | request queue | local | response queue | response send | total"
            + " | total p99 / p99.9 | broker GC | test JVM GC | CPU broker / test JVM / consumer / machine | kdamond CPU"
            + " | steal (whole VM) |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        List<Run> runs = new ArrayList<>();
        try (KafkaBroker broker = new LocalKafkaBroker(spec)) {
            broker.start();
            KafkaClients.createTopic(broker, BACKLOG, PARTITIONS, Map.of("segment.bytes", Integer.toString(64 << 20)));
            KafkaClients.createTopic(broker, STEADY, 1, Map.of());
            KafkaClients.producerPerformance(broker, BACKLOG, BACKLOG_RECORDS, 1024, -1,
                Map.of("batch.size", "262144", "linger.ms", "20"), Duration.ofMinutes(15));
            try (BrokerJmx jmx = BrokerJmx.connect(jmxPort)) {
                GcPauses brokerGc = GcPauses.listenTo(jmx.connection);
                GcPauses testGc = GcPauses.listenTo(ManagementFactory.getPlatformMBeanServer());
                for (int round = 1; round <= ROUNDS; round++) {
                    for (int i = 0; i < ARMS.size(); i++) {
                        String arm = ARMS.get((i + round - 1) % ARMS.size());
                        Run r = run(round, arm, broker, mb.prometheusPort, jmx, brokerGc, testGc, dir, disk, real);
                        runs.add(r);
                        append(out, String.format("| %d | %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.0f | %.0f (%.0f) | %.0f (%.0f) | %s |%n",
                            round, arm, r.p999Before(), r.p999During(), r.ratio(), r.p99Before(), r.p99During(),
                            r.catchUpSeconds(), r.warmedMiB(), r.networkP99(), r.networkCount(), r.networkOver10ms(),
                            r.networkMax(), r.networkCold()));
                        append(diag, diagnostics(r));
                        append(dir.resolve(name + "-ops.md"), "round " + round + " " + arm + " (resident at start "
                            + String.format("%.3f", r.residentAtStart()) + "), catch-up " + String.format("%.1f", r.catchUpSeconds())
                            + " s (monotonic clock at its start: " + String.format("%.3f", r.startNanos() / 1e9)
                            + " s, \"before\" from " + String.format("%.3f", r.beforeStartNanos() / 1e9)
                            + " s); slowest records during it (ms@s after its start): " + r.slowest()
                            + "\n  agent ops during the catch-up:\n  " + String.join("\n  ", r.ops()) + "\n");
                    }
                }
            }
        }
        StringBuilder medians = new StringBuilder("\n| arm | median p99.9 before ms | median p99.9 during ms"
            + " | median during/before | median p99 before ms | median p99 during ms | median network transfer_to p99 ms"
            + " | median broker Produce total mean before / during ms | pooled p99.9 before / during ms (ratio) |\n"
            + "|---|---|---|---|---|---|---|---|---|\n");
        for (String arm : ARMS) {
            List<Run> rs = runs.stream().filter(r -> r.arm().equals(arm)).toList();
            // every round's records in one sample per window: the same quantile, less at the mercy of one window
            double pooledBefore = pooledQuantileMs(rs.stream().map(Run::latenciesBefore).toList(), 0.999);
            double pooledDuring = pooledQuantileMs(rs.stream().map(Run::latenciesDuring).toList(), 0.999);
            medians.append(String.format("| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.0f | %.2f / %.2f | %.1f / %.1f (%.1f) |%n", arm,
                median(rs, Run::p999Before), median(rs, Run::p999During), median(rs, Run::ratio),
                median(rs, Run::p99Before), median(rs, Run::p99During), median(rs, Run::networkP99),
                median(rs, r -> r.produce().get("TotalTimeMs")[1].meanSince(r.produce().get("TotalTimeMs")[0])),
                median(rs, r -> r.produce().get("TotalTimeMs")[3].meanSince(r.produce().get("TotalTimeMs")[2])),
                pooledBefore, pooledDuring, pooledDuring / pooledBefore));
        }
        medians.append("\nload average at end: ").append(LoadAverage.now()).append("; ").append(Damon.describe())
            .append(real == null ? "" : "; disk at the end: " + real.describe()).append('\n');
        append(out, medians.toString());
        System.out.println(Files.readString(out) + "\n" + Files.readString(diag));
    }

    private static Run run(int round, String arm, KafkaBroker broker, int port, BrokerJmx jmx, GcPauses brokerGc,
                           GcPauses testGc, Path dir, SlowDisk disk, BenchDisk real) throws Exception {
        // "on", or "on+wait=250ms": prefetch with that mitigate.prefetch.max.wait
        boolean prefetch = arm.equals("on") || arm.startsWith("on+wait=");
        String prefetchOptions = arm.startsWith("on+wait=") ? "mitigate.prefetch.max.wait=" + arm.substring("on+wait=".length())
            + (PREFETCH_OPTIONS.isEmpty() ? "" : "," + PREFETCH_OPTIONS) : PREFETCH_OPTIONS;
        boolean noAgent = arm.equals("warm-no-agent");
        boolean warm = arm.equals("warm") || noAgent;
        agent(broker, "detach", Long.toString(broker.pid()));
        if (!noAgent) {
            agent(broker, "attach", Long.toString(broker.pid()), "prometheus=127.0.0.1:" + port + (prefetch ? ",mitigate=prefetch" + (prefetchOptions.isEmpty() ? "" : "," + prefetchOptions) : ""));
        }
        List<Path> segments = backlogSegments(broker);
        List<Path> active = activeSegments(segments);
        List<Path> rolled = segments.stream().filter(f -> !active.contains(f)).toList();
        // Cold arms: the rolled segments are evicted; each partition's active segment, written moments
        // ago in a live partition, stays resident (prefetch leaves active segments alone for that reason).
        // Warm: every segment. Resident means loaded and locked in memory for the run: this VM's kernel
        // reclaims idle page-cache pages within seconds (DAMON pageout), which would leave part of a
        // merely read file cold again.
        if (!warm) {
            PageCache.evict(rolled);
        }
        AutoCloseable pinned = PageCache.pin(warm ? segments : active);
        double resident = PageCache.residentFraction(segments);
        assertThat(PageCache.residentFraction(rolled)).as("rolled segments resident at the start of arm " + arm)
            .isBetween(warm ? 0.999 : 0, warm ? 1 : 0.01);
        long testPid = ProcessHandle.current().pid();
        try (pinned; LatencyProducer steady = new LatencyProducer(KafkaClients.producerConfig(broker), STEADY, RATE)) {
            // the producer's connection, InitProducerId and first batches, and the attach's aftermath: not measured
            Thread.sleep(SETTLE_SECONDS * 1000L);
            long before = System.nanoTime();
            Map<String, BrokerJmx.Reading> j0 = jmx.produce();
            long[] c0 = cpu(broker.pid(), testPid, -1);
            Thread.sleep(BEFORE_SECONDS * 1000L);
            long beforeEnd = System.nanoTime();
            Map<String, BrokerJmx.Reading> j1 = jmx.produce();
            long[] c1 = cpu(broker.pid(), testPid, -1);
            int shimCallsBefore = disk == null ? 0 : disk.calls().size();
            long readBefore = real == null ? 0 : real.disk().ioStat().readBytes();
            long catchUpStart;
            long catchUpEnd;
            long n;
            PrometheusScrape atStart;
            Map<String, BrokerJmx.Reading> j2;
            long[] c2;
            long[] c3;
            if (CONSUMER_PROCESS) {
                try (CatchUpProcess consumer = CatchUpProcess.start(broker.bootstrapServers(), BACKLOG, NICE,
                    dir.resolve("catch-up-" + round + "-" + arm))) {
                    consumer.awaitPositioned(Duration.ofMinutes(2));
                    catchUpStart = System.nanoTime();
                    atStart = scrape(noAgent, port);
                    j2 = jmx.produce();
                    c2 = cpu(broker.pid(), testPid, consumer.pid());
                    long consumerTicks = CpuTicks.process(consumer.pid());
                    n = consumer.awaitDone(Duration.ofMinutes(10));
                    catchUpEnd = System.nanoTime();
                    c3 = cpu(broker.pid(), testPid, -1);
                    c3[3] = lastTicks(consumer.pid(), consumerTicks);
                }
            } else {
                long[] start = new long[1];
                PrometheusScrape[] scrape = new PrometheusScrape[1];
                List<Map<String, BrokerJmx.Reading>> jr = new ArrayList<>();
                List<long[]> cr = new ArrayList<>();
                n = KafkaClients.consumeAll(KafkaClients.consumerConfig(broker), BACKLOG, true, Duration.ofMinutes(10), () -> {
                    try {
                        start[0] = System.nanoTime();
                        scrape[0] = scrape(noAgent, port);
                        jr.add(jmx.produce());
                        cr.add(cpu(broker.pid(), testPid, -1));
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                catchUpEnd = System.nanoTime();
                catchUpStart = start[0];
                atStart = scrape[0];
                j2 = jr.get(0);
                c2 = cr.get(0);
                c3 = cpu(broker.pid(), testPid, -1);
            }
            Map<String, BrokerJmx.Reading> j3 = jmx.produce();
            assertThat(n).isEqualTo(BACKLOG_RECORDS);
            PrometheusScrape atEnd = scrape(noAgent, port);
            double warmed = (atEnd.sum("stallscope_prefetch_bytes_total", Map.of())
                - atStart.sum("stallscope_prefetch_bytes_total", Map.of())) / (1 << 20);
            Map<String, BrokerJmx.Reading[]> produce = new HashMap<>();
            j0.forEach((k, v) -> produce.put(k, new BrokerJmx.Reading[] {v, j1.get(k), j2.get(k), j3.get(k)}));
            long beforeNanos = beforeEnd - before;
            Map<Long, String> threads = BrokerThreads.byTid(broker.pid());
            String networkCold;
            if (disk == null) {
                // the real disk: no shim to say which thread met the cold pages; the cgroup says how much the kernel read
                networkCold = String.format("%.1f", (real.disk().ioStat().readBytes() - readBefore) / 1048576.0);
            } else {
                List<io.stallscope.it.slowdisk.ShimCall> net = disk.calls().subList(shimCallsBefore, disk.calls().size()).stream()
                    .filter(c -> threads.getOrDefault(c.tid(), "").contains("network-thread")).toList();
                networkCold = String.format("%d / %.1f / %.1f", net.stream().filter(io.stallscope.it.slowdisk.ShimCall::delayed).count(),
                    net.stream().mapToLong(io.stallscope.it.slowdisk.ShimCall::coldBytes).sum() / 1048576.0,
                    net.stream().mapToDouble(io.stallscope.it.slowdisk.ShimCall::delayMs).sum() / 1000);
            }
            long duringNanos = catchUpEnd - catchUpStart;
            return new Run(round, arm, steady.quantileMs(before, beforeEnd, 0.999), steady.quantileMs(catchUpStart, catchUpEnd, 0.999),
                steady.quantileMs(before, beforeEnd, 0.99), steady.quantileMs(catchUpStart, catchUpEnd, 0.99),
                duringNanos / 1e9, warmed, atEnd.quantileMsSince(atStart, "transfer_to", "network", 0.99),
                atEnd.countSince(atStart, "transfer_to", "network"), resident, produce,
                brokerGc.summary(before, beforeEnd), brokerGc.summary(catchUpStart, catchUpEnd),
                testGc.summary(before, beforeEnd), testGc.summary(catchUpStart, catchUpEnd),
                percents(c0, c1, beforeNanos), percents(c2, c3, duringNanos),
                atEnd.opsSince(atStart), atEnd.countAboveSince(atStart, "transfer_to", "network", 10),
                atEnd.quantileMsSince(atStart, "transfer_to", "network", 1.0), networkCold,
                steady.slowest(catchUpStart, catchUpEnd, 15), catchUpStart, before,
                steady.latencies(before, beforeEnd), steady.latencies(catchUpStart, catchUpEnd));
        }
    }

    /** The agent's metrics now; with the agent detached there are none (its figures come out NaN or empty). */
    private static PrometheusScrape scrape(boolean noAgent, int port) throws Exception {
        return noAgent ? PrometheusScrape.parse("") : PrometheusScrape.scrape(port);
    }

    /** CPU ticks now: broker, test JVM, machine busy, consumer (-1: none), kdamond, machine steal. */
    private static long[] cpu(long brokerPid, long testPid, long consumerPid) {
        return new long[] {CpuTicks.process(brokerPid), CpuTicks.process(testPid), CpuTicks.machineBusy(),
            consumerPid < 0 ? -1 : CpuTicks.process(consumerPid), CpuTicks.kdamond(), CpuTicks.machineSteal()};
    }

    /** Percent of one core over a window, per {@link #cpu} slot (NaN where a count is missing). */
    private static double[] percents(long[] from, long[] to, long nanos) {
        double[] p = new double[from.length];
        for (int i = 0; i < p.length; i++) {
            p[i] = CpuTicks.percent(from[i], to[i], nanos);
        }
        return p;
    }

    /**
     * The consumer's CPU ticks just before it exits: its /proc entry goes with it, so poll until then, for
     * at most 10 s (as long as CatchUpProcess.close waits before killing it).
     */
    private static long lastTicks(long pid, long fallback) {
        long last = fallback;
        long deadline = System.nanoTime() + 10_000_000_000L;
        for (long t; (t = CpuTicks.process(pid)) >= 0; ) {
            last = t;
            if (ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true) || System.nanoTime() > deadline) {
                break;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return last;
    }

    private static String diagnostics(Run r) {
        StringBuilder sb = new StringBuilder();
        for (int w = 0; w < 2; w++) {
            sb.append(String.format("| %d | %s | %s |", r.round(), r.arm(), w == 0 ? "before" : "during"));
            for (String part : List.of("RequestQueueTimeMs", "LocalTimeMs", "ResponseQueueTimeMs", "ResponseSendTimeMs", "TotalTimeMs")) {
                BrokerJmx.Reading[] x = r.produce().get(part);
                sb.append(String.format(" %.2f |", x[2 * w + 1].meanSince(x[2 * w])));
            }
            BrokerJmx.Reading t = r.produce().get("TotalTimeMs")[2 * w + 1];
            double[] cpu = w == 0 ? r.cpuBefore() : r.cpuDuring();
            sb.append(String.format(" %.0f / %.0f | %s | %s | %.0f / %.0f / %s / %.0f | %s | %s |%n", t.p99(), t.p999(),
                w == 0 ? r.brokerGcBefore() : r.brokerGcDuring(), w == 0 ? r.testGcBefore() : r.testGcDuring(),
                cpu[0], cpu[1], orDash(cpu[3]), cpu[2], orDash(cpu[4]), orDash(cpu[5])));
        }
        return sb.toString();
    }

    private static String orDash(double v) {
        return Double.isNaN(v) ? "-" : String.format("%.0f", v);
    }

    private static void append(Path file, String text) throws Exception {
        Files.writeString(file, text, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    private static void agent(KafkaBroker broker, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(KafkaJdks.defaultJdk().resolve("bin/java").toString(), "-jar",
            AgentJar.path().toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(String.join(" ", cmd) + "\n" + output).isZero();
    }

    private static List<Path> backlogSegments(KafkaBroker broker) throws Exception {
        List<Path> out = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            try (Stream<Path> files = Files.list(broker.dataDir().resolve(BACKLOG + "-" + p))) {
                files.filter(f -> f.getFileName().toString().endsWith(".log")).forEach(out::add);
            }
        }
        return out;
    }

    /** The newest segment of each partition directory. */
    private static List<Path> activeSegments(List<Path> segments) {
        Map<Path, Path> newest = new HashMap<>();
        for (Path f : segments) {
            newest.merge(f.getParent(), f, (a, b) -> a.getFileName().toString().compareTo(b.getFileName().toString()) > 0 ? a : b);
        }
        return List.copyOf(newest.values());
    }

    private static double pooledQuantileMs(List<long[]> samples, double q) {
        long[] v = samples.stream().flatMapToLong(java.util.Arrays::stream).sorted().toArray();
        return v.length == 0 ? Double.NaN : v[Math.min(v.length - 1, (int) Math.ceil(q * v.length) - 1)] / 1e6;
    }

    private static double median(List<Run> rs, java.util.function.ToDoubleFunction<Run> f) {
        double[] v = rs.stream().mapToDouble(f).sorted().toArray();
        if (v.length == 0) {
            return Double.NaN;
        }
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
