package io.stallscope.analyzer.workload;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.stallscope.analyzer.analysis.Analysis;
import io.stallscope.analyzer.analysis.Analyzer;
import io.stallscope.analyzer.analysis.Options;
import io.stallscope.analyzer.analysis.waits.Holder;
import io.stallscope.analyzer.analysis.waits.Wait;
import io.stallscope.analyzer.cli.Main;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.read.JfrFileReader;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.StreamSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Records the contention program for real (async-profiler wall+lock, and JDK Flight Recorder; a monitor and a
 * ReentrantLock) and checks the report against the program's own log of who held the lock when.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ContentionRecordingTest {
    private Path apMonitor;
    private Path apReentrant;
    private Path jdkMonitor;
    private Path jdkReentrant;
    private Path jfrsync;

    @BeforeAll
    void record() throws Exception {
        apMonitor = Recorder.asyncProfiler("monitor");
        apReentrant = Recorder.asyncProfiler("reentrant");
        jdkMonitor = Recorder.jdk("monitor");
        jdkReentrant = Recorder.jdk("reentrant");
        jfrsync = Recorder.jfrsync("monitor");
    }

    static Analysis analyze(Path jfr) throws Exception {
        Recording rec = new Recording();
        JfrFileReader.read(jfr, rec, null);
        return Analyzer.analyze(rec, Options.defaults());
    }

    /** Runs the CLI and returns its JSON report, checking the text report names the same holder. */
    static JsonNode cliJson(Path jfr) throws Exception {
        Path json = jfr.resolveSibling(jfr.getFileName() + ".json");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(new String[] {"report", jfr.toString(), "--json", json.toString()},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
        JsonNode root = new ObjectMapper().readTree(json.toFile());
        String text = out.toString(StandardCharsets.UTF_8);
        String holder = root.at("/contentions/0/holder/thread").asText();
        assertThat(text).contains("holder: " + holder + " (");
        return root;
    }

    /**
     * Every monitor-enter and park event, field by field, as the JDK's own parser reads it: the lock events are read
     * by a path of their own (no generic decode), on every producer's layout.
     */
    @Test
    void lockEventsAgreeWithTheJdkParser() throws Exception {
        for (Path jfr : List.of(apMonitor, apReentrant, jdkMonitor, jdkReentrant, jfrsync)) {
            Recording rec = new Recording();
            JfrFileReader.read(jfr, rec, null);
            List<long[]> ours = new ArrayList<>();
            List<String> oursKeys = new ArrayList<>();
            for (int i = 0; i < rec.locks.size(); i++) {
                io.stallscope.analyzer.model.LockEvent e = rec.locks.get(i);
                ours.add(new long[] {e.start(), e.end()});
                oursKeys.add(e.kind() + " " + rec.threadName(e.thread()) + " " + e.lockClass() + " " + e.address() + " "
                        + (e.previousOwner() < 0 ? "-" : rec.threadName(e.previousOwner())));
            }
            List<long[]> theirs = new ArrayList<>();
            List<String> theirsKeys = new ArrayList<>();
            try (jdk.jfr.consumer.RecordingFile rf = new jdk.jfr.consumer.RecordingFile(jfr)) {
                while (rf.hasMoreEvents()) {
                    jdk.jfr.consumer.RecordedEvent e = rf.readEvent();
                    String type = e.getEventType().getName();
                    boolean monitor = type.equals("jdk.JavaMonitorEnter");
                    if (!monitor && !type.equals("jdk.ThreadPark")) continue;
                    jdk.jfr.consumer.RecordedClass cls = e.getClass(monitor ? "monitorClass" : "parkedClass");
                    jdk.jfr.consumer.RecordedThread owner = monitor && e.hasField("previousOwner") ? e.getThread("previousOwner") : null;
                    theirs.add(new long[] {nanos(e.getStartTime()), nanos(e.getEndTime())});
                    theirsKeys.add((monitor ? "MONITOR" : "PARK") + " " + name(e.getThread()) + " " + (cls == null ? null : cls.getName())
                            + " " + (e.hasField("address") ? e.getLong("address") : 0) + " " + (owner == null ? "-" : name(owner)));
                }
            }
            assertThat(ours).as(jfr.toString()).hasSameSizeAs(theirs).isNotEmpty();
            List<Integer> a = inOrder(oursKeys, ours);
            List<Integer> b = inOrder(theirsKeys, theirs);
            for (int k = 0; k < a.size(); k++) {
                int i = a.get(k);
                int j = b.get(k);
                String what = jfr + ": " + oursKeys.get(i) + " against " + theirsKeys.get(j);
                assertThat(oursKeys.get(i)).as(what).isEqualTo(theirsKeys.get(j));
                // The two parsers convert ticks to nanoseconds each its own way: a few nanoseconds apart at most.
                assertThat(ours.get(i)[0]).as(what).isCloseTo(theirs.get(j)[0], org.assertj.core.data.Offset.offset(1_000L));
                assertThat(ours.get(i)[1]).as(what).isCloseTo(theirs.get(j)[1], org.assertj.core.data.Offset.offset(1_000L));
            }
        }
    }

    private static String name(jdk.jfr.consumer.RecordedThread t) {
        return t.getJavaName() != null && !t.getJavaName().isEmpty() ? t.getJavaName() : t.getOSName();
    }

    private static long nanos(java.time.Instant t) {
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }

    /** The events' indexes by key, then start time: one order for both parsers. */
    private static List<Integer> inOrder(List<String> keys, List<long[]> times) {
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) order.add(i);
        order.sort(java.util.Comparator.comparing((Integer i) -> keys.get(i)).thenComparingLong(i -> times.get(i)[0]));
        return order;
    }

    @Test
    void asyncProfilerMonitorNamesTheHolderBlockedInFileIo() throws Exception {
        JsonNode root = cliJson(apMonitor);
        JsonNode c = root.at("/contentions/0");
        assertThat(c.get("lock").asText()).contains("java.lang.Object").contains("ContentionProgram.handle");
        assertThat(c.get("waiters")).hasSizeGreaterThanOrEqualTo(3);
        assertHandlerHolderInFileIo(c.get("holder"), Holder.INFERRED);
        assertThat(root.at("/findings/0/kind").asText()).isEqualTo("holder-blocked-in-file-io");
        assertThat(kinds(root)).contains("network-thread-blocked-in-file-io", "fsync-on-produce-path", "contended-locks");
        assertInferredHoldersAreTrue(apMonitor);
    }

    @Test
    void asyncProfilerReentrantLockIsFoundFromParkedSamplesAndEvents() throws Exception {
        JsonNode root = cliJson(apReentrant);
        JsonNode c = root.at("/contentions/0");
        assertThat(c.get("lockType").asText()).contains("ReentrantLock");
        assertThat(c.get("site").asText()).contains("ContentionProgram.handle");
        assertHandlerHolderInFileIo(c.get("holder"), Holder.INFERRED);
        assertInferredHoldersAreTrue(apReentrant);
    }

    @Test
    void jdkMonitorHolderIsRecordedExactly() throws Exception {
        JsonNode root = cliJson(jdkMonitor);
        JsonNode c = root.at("/contentions/0");
        assertThat(c.get("lock").asText()).contains("java.lang.Object");
        assertHandlerHolderInFileIo(c.get("holder"), Holder.RECORDED);
        assertThat(c.at("/holder/confidence").asDouble()).isEqualTo(1.0);
        // previousOwner is the thread that released the lock last: its hold ends when the wait does.
        Analysis a = analyze(jdkMonitor);
        List<Recorder.Hold> truth = Recorder.truth(jdkMonitor);
        List<Wait> checked = a.waits().stream().filter(w -> w.holder != null && w.lockLabel.contains("ContentionProgram")
                && a.recording().threadName(w.thread).startsWith("data-plane")).toList();
        assertThat(checked).hasSizeGreaterThan(20);
        long released = checked.stream().filter(w -> truth.stream().anyMatch(h ->
                h.thread().equals(a.recording().threadName(w.holder.thread())) && Math.abs(h.to() - w.end) < 5_000_000L)).count();
        assertThat((double) released / checked.size()).as("waits whose recorded holder released the lock as the wait ended").isGreaterThan(0.9);
    }

    @Test
    void jdkReentrantLockHolderIsInferredFromNativeSamples() throws Exception {
        JsonNode root = cliJson(jdkReentrant);
        JsonNode c = root.at("/contentions/0");
        assertThat(c.get("lockType").asText()).contains("ReentrantLock");
        assertHandlerHolderInFileIo(c.get("holder"), Holder.INFERRED);
        assertInferredHoldersAreTrue(jdkReentrant);
    }

    @Test
    void jfrsyncJoinsTheJdkChunkAndTheProfilerChunkInTime() throws Exception {
        JsonNode root = cliJson(jfrsync);
        assertThat(root.at("/files/0/chunks").asInt()).isEqualTo(2);
        assertThat(root.at("/files/0/producers").toString()).contains("JDK").contains("async-profiler");
        // Threads of both chunks are joined: each handler is one thread, with samples (from the profiler chunk)
        // and waits (from the JDK chunk).
        List<String> names = new ArrayList<>();
        root.get("threads").forEach(t -> names.add(t.get("name").asText()));
        for (int i = 0; i < ContentionProgram.HANDLERS; i++) {
            assertThat(names).containsOnlyOnce("data-plane-kafka-request-handler-" + i);
        }
        JsonNode c = root.at("/contentions/0");
        assertHandlerHolderInFileIo(c.get("holder"), Holder.RECORDED);
        // The holder comes from the JDK chunk's previousOwner; the profiler chunk's samples of that holder must
        // fall inside those waits, which holds only if each chunk's ticks were converted with its own base
        // (the bases differ by about an hour here).
        Analysis a = analyze(jfrsync);
        long interval = a.intervals()[0];
        int recorded = 0;
        int sampledMeanwhile = 0;
        for (Wait w : a.waits()) {
            if (w.holder == null || !w.holder.how().equals(Holder.RECORDED) || !w.siteMethod.contains("ContentionProgram")) continue;
            recorded++;
            var lane = a.recording().samples.lane(w.holder.thread());
            int i = lane.firstAtOrAfter(w.start - interval);
            if (i < lane.size() && lane.time(i) <= w.end + interval) sampledMeanwhile++;
        }
        System.out.printf("jfrsync: %d of %d recorded waits have holder samples%n", sampledMeanwhile, recorded);
        assertThat(recorded).isGreaterThan(20);
        assertThat((double) sampledMeanwhile / recorded).as("%d of %d recorded waits have holder samples", sampledMeanwhile, recorded)
                .isGreaterThan(0.5);
    }

    private static List<String> kinds(JsonNode root) {
        return StreamSupport.stream(root.get("findings").spliterator(), false).map(f -> f.get("kind").asText()).toList();
    }

    private static void assertHandlerHolderInFileIo(JsonNode holder, String how) {
        assertThat(holder.isObject()).as("holder named").isTrue();
        assertThat(holder.get("thread").asText()).startsWith("data-plane-kafka-request-handler-");
        assertThat(holder.get("how").asText()).isEqualTo(how);
        assertThat(holder.get("syscall").asText()).isIn("write", "fsync");
        List<String> frames = new ArrayList<>();
        holder.get("frames").forEach(f -> frames.add(f.asText()));
        assertThat(frames).anyMatch(f -> f.startsWith("java.io.FileOutputStream.write") || f.startsWith("java.io.FileDescriptor.sync"));
        assertThat(frames).anyMatch(f -> f.startsWith("io.stallscope.analyzer.workload.ContentionProgram.appendLocked"));
    }

    /**
     * For inferred holders, the program's log must agree: the named holder really held the lock during the
     * wait (give or take two sampling intervals), and does so far more often than another handler named blindly.
     */
    private static void assertInferredHoldersAreTrue(Path jfr) throws Exception {
        Analysis a = analyze(jfr);
        List<Recorder.Hold> truth = Recorder.truth(jfr);
        long slack = 2 * a.intervals()[0];
        int checked = 0;
        int held = 0;
        int dominant = 0;
        int baselineHeld = 0;
        int strictHeld = 0;
        for (Wait w : a.waits()) {
            if (w.holder == null || !w.holder.how().equals(Holder.INFERRED) || !w.siteMethod.contains("ContentionProgram")) continue;
            checked++;
            String name = a.recording().threadName(w.holder.thread());
            if (truth.stream().anyMatch(h -> h.thread().equals(name) && h.to() >= w.start - slack && h.from() <= w.end + slack)) held++;
            if (name.equals(longestHolder(truth, w.start - slack, w.end + slack))) dominant++;
            // The baseline: another handler, chosen without looking, named as holder of the same wait.
            String other = otherHandler(name, a.recording().threadName(w.thread), w.start);
            if (truth.stream().anyMatch(h -> h.thread().equals(other) && h.to() >= w.start && h.from() <= w.end)) baselineHeld++;
            if (truth.stream().anyMatch(h -> h.thread().equals(name) && h.to() >= w.start && h.from() <= w.end)) strictHeld++;
        }
        System.out.printf("%s: inferred %d, held %d, strict %d, baseline %d, longest %d%n", jfr.getFileName(), checked, held, strictHeld, baselineHeld, dominant);
        assertThat(checked).as("inferred waits").isGreaterThan(10);
        assertThat((double) held / checked).as("holders that held the lock during the wait (%d/%d)", held, checked).isGreaterThan(0.9);
        // A guess does far worse: the baseline names another handler for the same waits.
        assertThat((double) strictHeld / checked).as("holders that held the lock inside the wait (%d/%d), vs a guess (%d/%d)",
                strictHeld, checked, baselineHeld, checked).isGreaterThan(Math.max(0.6, (double) baselineHeld / checked + 0.1));
    }

    /** A handler other than the named holder and the waiter, picked by the wait's start time. */
    private static String otherHandler(String holder, String waiter, long salt) {
        List<String> others = new ArrayList<>();
        for (int i = 0; i < ContentionProgram.HANDLERS; i++) {
            String n = "data-plane-kafka-request-handler-" + i;
            if (!n.equals(holder) && !n.equals(waiter)) others.add(n);
        }
        return others.get((int) Math.floorMod(salt / 1000, (long) others.size()));
    }

    private static String longestHolder(List<Recorder.Hold> truth, long from, long to) {
        java.util.Map<String, Long> held = new java.util.HashMap<>();
        for (Recorder.Hold h : truth) {
            long overlap = Math.min(h.to(), to) - Math.max(h.from(), from);
            if (overlap > 0) held.merge(h.thread(), overlap, Long::sum);
        }
        return held.entrySet().stream().max(java.util.Map.Entry.comparingByValue()).map(java.util.Map.Entry::getKey).orElse(null);
    }
}
