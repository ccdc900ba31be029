package io.stallscope.analyzer.workload;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.stallscope.analyzer.analysis.Analysis;
import io.stallscope.analyzer.analysis.Analyzer;
import io.stallscope.analyzer.analysis.Options;
import io.stallscope.analyzer.analysis.holders.Contention;
import io.stallscope.analyzer.analysis.holders.LogLockPartitions;
import io.stallscope.analyzer.cli.Main;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.read.JfrFileReader;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The topic-partition of a log lock, named from the agent's spans, on a recording this test makes in its own JVM
 * with JDK Flight Recorder: monitor-enter events with their previous owner, and events named and shaped as the
 * agent's ({@link AgentOpsProgram}'s copies of stallscope.RecordsAppend and stallscope.SegmentFlush).
 *
 * <p>Four locks, each of its own class, the first three taken where Kafka takes a log's lock (in
 * {@code kafka.log.UnifiedLog.append}, see that test class): {@link OrdersZeroLog}, whose holders append to orders-0
 * inside it; {@link SharedLog}, whose holders append to orders-1 and orders-2 by turns; {@link NoOpLock}, whose
 * holders sleep with no op, while another thread flushes orders-9 holding no lock at all. {@link OtherLock} is taken
 * in this test's own code, its holders appending to orders-5 under it: not a log's lock.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LogLockNamesTest {
    static final class OrdersZeroLog {
    }

    static final class SharedLog {
    }

    static final class NoOpLock {
    }

    static final class OtherLock {
    }

    static final int HOLDS = 25;
    static final long HOLD_MS = 3;

    private Path jfr;
    private Analysis analysis;

    @BeforeAll
    void record() throws Exception {
        jfr = Recorder.workDir().resolve("log-locks.jfr");
        Files.deleteIfExists(jfr);
        try (jdk.jfr.Recording r = new jdk.jfr.Recording()) {
            r.enable("jdk.JavaMonitorEnter").withThreshold(Duration.ZERO).withStackTrace();
            r.enable(AgentOpsProgram.RecordsAppend.class).withThreshold(Duration.ZERO);
            r.enable(AgentOpsProgram.SegmentFlush.class).withThreshold(Duration.ZERO);
            r.start();
            OrdersZeroLog a = new OrdersZeroLog();
            SharedLog b = new SharedLog();
            NoOpLock c = new NoOpLock();
            List<Thread> threads = new ArrayList<>();
            CountDownLatch go = new CountDownLatch(1);
            OtherLock d = new OtherLock();
            for (int i = 0; i < 9; i++) {
                int n = i;
                Object lock = n < 3 ? a : n < 5 ? b : n < 7 ? c : d;
                threads.add(new Thread(() -> hold(go, lock, n), "data-plane-kafka-request-handler-" + n));
            }
            threads.add(new Thread(() -> flushUnlocked(go), "kafka-scheduler-0"));
            threads.forEach(Thread::start);
            go.countDown();
            for (Thread t : threads) t.join();
            r.stop();
            r.dump(jfr);
        }
        Recording rec = new Recording();
        JfrFileReader.read(jfr, rec, null);
        analysis = Analyzer.analyze(rec, Options.defaults());
    }

    private static void hold(CountDownLatch go, Object lock, int n) {
        try {
            go.await();
            for (int i = 0; i < HOLDS; i++) {
                int round = i;
                if (lock instanceof OtherLock) {
                    // not a log's lock, though its holders append to orders-5 under it
                    synchronized (lock) {
                        append(5);
                    }
                } else {
                    kafka.log.UnifiedLog.append(lock, () -> {
                        if (lock instanceof OrdersZeroLog) append(0);
                        else if (lock instanceof SharedLog) append(1 + (round + n) % 2);
                        else sleep();
                    });
                }
                Thread.sleep(1);
            }
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    /** An op on orders-{@code partition} of {@link #HOLD_MS}, committed as the agent commits its events. */
    private static void append(int partition) {
        long t0 = System.nanoTime();
        sleep();
        AgentOpsProgram.commit(new AgentOpsProgram.RecordsAppend(), "records_append", System.nanoTime() - t0,
                "request_handler", partition, 1024, "/logs/orders-" + partition + "/00000000000000000000.log");
    }

    private static void sleep() {
        try {
            Thread.sleep(HOLD_MS);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void flushUnlocked(CountDownLatch go) {
        try {
            go.await();
            for (int i = 0; i < HOLDS * 2; i++) {
                long t0 = System.nanoTime();
                Thread.sleep(HOLD_MS);
                AgentOpsProgram.commit(new AgentOpsProgram.SegmentFlush(), "segment_flush", System.nanoTime() - t0,
                        "scheduler", 9, -1, "/logs/orders-9/00000000000000000000.log");
            }
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private Contention lock(Class<?> monitorClass) {
        return analysis.contentions().stream().filter(c -> c.label.contains(monitorClass.getSimpleName())).findFirst().orElseThrow(
                () -> new AssertionError("no contention on " + monitorClass.getSimpleName() + " in " + analysis.contentions().stream().map(c -> c.label).toList()));
    }

    @Test
    void aLockWhoseHoldersAppendToOnePartitionIsThatPartitionsLogLock() {
        Contention a = lock(OrdersZeroLog.class);
        assertThat(a.recordedWaits).isGreaterThan(10);
        assertThat(a.logs).extracting(LogLockPartitions.Share::log).containsExactly("orders-0");
        // Nearly every wait: the holder appended inside the lock for all of its hold, but a waiter that queued in the
        // few microseconds between the holder's commit and its release overlaps no op.
        assertThat(a.logs.get(0).waits()).isGreaterThanOrEqualTo(a.waitCount * 9 / 10).isLessThanOrEqualTo(a.waitCount);
    }

    @Test
    void aLockOverTwoPartitionsNamesBothWithTheirWaits() {
        Contention b = lock(SharedLog.class);
        assertThat(b.logs).extracting(LogLockPartitions.Share::log).containsExactlyInAnyOrder("orders-1", "orders-2");
        assertThat(b.logs).allSatisfy(s -> assertThat(s.waits()).isPositive());
        assertThat(b.logs.stream().mapToInt(LogLockPartitions.Share::waits).sum()).isLessThanOrEqualTo(b.waitCount);
    }

    @Test
    void aLockTakenOutsideKafkasLogClassesIsNoLogsThoughItsHoldersAppend() {
        Contention d = lock(OtherLock.class);
        assertThat(d.recordedWaits).isGreaterThan(5);
        assertThat(d.logs).isEmpty();
        assertThat(analysis.contentions()).allSatisfy(c -> assertThat(c.logs).extracting(LogLockPartitions.Share::log)
                .doesNotContain("orders-5", "orders-9"));
    }

    @Test
    void aLockWhoseHoldersRunNoOpIsNotNamedThoughAnotherThreadRanOpsMeanwhile() {
        Contention c = lock(NoOpLock.class);
        assertThat(c.recordedWaits).isGreaterThan(5);
        assertThat(c.logs).isEmpty();
    }

    /** The same rule applied to the JDK's own reading of the file: the previous owner's op ending last in the wait. */
    @Test
    void theCountsAreThoseOfTheRawEvents() throws Exception {
        List<RecordedEvent> events = RecordingFile.readAllEvents(jfr);
        Map<Long, List<RecordedEvent>> opsByThread = new HashMap<>();
        for (RecordedEvent e : events) {
            if (e.getEventType().getName().startsWith("stallscope.")) {
                opsByThread.computeIfAbsent(e.getThread().getJavaThreadId(), k -> new ArrayList<>()).add(e);
            }
        }
        for (Class<?> cls : List.of(OrdersZeroLog.class, SharedLog.class, NoOpLock.class)) {
            // all three are taken in kafka.log.UnifiedLog.append, the top frame of every wait on them
            Map<String, Integer> expected = new TreeMap<>();
            for (RecordedEvent e : events) {
                if (!e.getEventType().getName().equals("jdk.JavaMonitorEnter") || !e.getClass("monitorClass").getName().endsWith(cls.getSimpleName())) continue;
                assertThat(e.getStackTrace().getFrames().get(0).getMethod().getType().getName()).isEqualTo("kafka.log.UnifiedLog");
                if (e.getThread("previousOwner") == null) continue;
                long from = nanos(e.getStartTime());
                long to = nanos(e.getEndTime());
                String best = null;
                long bestEnd = Long.MIN_VALUE;
                for (RecordedEvent op : opsByThread.getOrDefault(e.getThread("previousOwner").getJavaThreadId(), List.of())) {
                    long end = nanos(op.getStartTime());
                    long start = end - op.getLong("opDuration");
                    if (start <= to && end >= from && end > bestEnd) {
                        bestEnd = end;
                        best = op.getString("topic") + "-" + op.getInt("partition");
                    }
                }
                if (best != null) expected.merge(best, 1, Integer::sum);
            }
            Map<String, Integer> read = new TreeMap<>();
            lock(cls).logs.forEach(s -> read.put(s.log(), s.waits()));
            assertThat(read).as(cls.getSimpleName()).isEqualTo(expected);
        }
    }

    /** A share as the report writes it: whole percent, never rounding a part to nothing or to everything. */
    private static String pct(long n, long total) {
        double p = 100.0 * n / total;
        return p < 1 ? "<1%" : p > 99 && n < total ? ">99%" : String.format(java.util.Locale.ROOT, "%.0f%%", p);
    }

    private static long nanos(java.time.Instant t) {
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }

    @Test
    void textJsonAndHtmlShowTheLogNextToTheLock() throws Exception {
        Path json = jfr.resolveSibling("log-locks.json");
        Path html = jfr.resolveSibling("log-locks.html");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(new String[] {"report", jfr.toString(), "--json", json.toString(), "--html", html.toString()},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
        Contention a = lock(OrdersZeroLog.class);
        Contention b = lock(SharedLog.class);
        String named = "lock of log orders-0 (" + a.logs.get(0).waits() + " of " + a.waitCount + " waits, "
                + pct(a.logs.get(0).nanos(), a.totalWaitNanos) + " of the time waited)";
        String text = out.toString(StandardCharsets.UTF_8);
        // right under the lock's own lines (wrapped), before its holders
        String block = text.substring(text.indexOf(a.label.substring(0, 40)));
        assertThat(block.substring(0, block.indexOf("holder: "))).contains(named);
        assertThat(text).contains("lock of logs " + b.logs.get(0).log() + " (" + b.logs.get(0).waits() + " of " + b.waitCount + " waits, "
                + pct(b.logs.get(0).nanos(), b.totalWaitNanos) + " of the time waited), "
                + b.logs.get(1).log() + " (" + b.logs.get(1).waits() + ", " + pct(b.logs.get(1).nanos(), b.totalWaitNanos) + ")");
        assertThat(text.substring(text.indexOf("Contended locks"), text.indexOf("Agent ops"))).doesNotContain("orders-5", "orders-9");

        JsonNode root = new ObjectMapper().readTree(json.toFile());
        Map<String, JsonNode> byLock = new HashMap<>();
        root.get("contentions").forEach(c -> byLock.put(c.get("lock").asText(), c));
        JsonNode ja = byLock.get(a.label);
        assertThat(ja.get("logs")).hasSize(1);
        assertThat(ja.at("/logs/0/log").asText()).isEqualTo("orders-0");
        assertThat(ja.at("/logs/0/waits").asInt()).isEqualTo(a.logs.get(0).waits());
        assertThat(ja.at("/logs/0/waitMs").asDouble()).isPositive();
        assertThat(byLock.get(b.label).get("logs")).hasSize(2);
        assertThat(byLock.get(lock(NoOpLock.class).label).get("logs")).isEmpty();

        // As the HTML writes it: a share of ">99%" or "<1%" (as the run's timing makes it) is escaped there.
        assertThat(Files.readString(html)).contains(named.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"));
    }
}
