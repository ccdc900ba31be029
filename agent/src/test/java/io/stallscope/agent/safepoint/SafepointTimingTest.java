package io.stallscope.agent.safepoint;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.stallscope.agent.report.jfr.ForeignRecordings;
import jdk.jfr.Event;
import jdk.jfr.Name;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Safepoint timing in this JVM, from its own JFR events: the safepoints are real ones, made by System.gc(). */
class SafepointTimingTest {
    /** Stands for one of the agent's own op events, loaded before the timing starts. */
    @Name("stallscope.test.Registered")
    static final class Registered extends Event {
    }

    /** One whose class loads only after the timing started, as an op event's may. */
    @Name("stallscope.test.Late")
    static final class Late extends Event {
    }

    @Test
    void everySafepointIsTimedAndASlowOneGetsALineAndAnEvent() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        List<String> lines = new CopyOnWriteArrayList<>();
        Recording recording = new Recording();
        recording.enable(SafepointSyncEvent.NAME);
        recording.start();
        // threshold 0: every safepoint is slow, so the line's path runs on whatever this JVM's collector calls its GC
        try (SafepointTiming timing = SafepointTiming.start(registry, 0, true, lines::add, 1000)) {
            assertThat(timing.summary()).isEqualTo("safepoint timing, slow from 0.0 ms");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (lines.isEmpty() && System.nanoTime() < deadline) {
                System.gc();
                TimeUnit.MILLISECONDS.sleep(200);
            }
            assertThat(lines).as("a line within 30 s of System.gc()").isNotEmpty();
            assertThat(lines.get(0)).startsWith("slow op=safepoint_sync duration_ms=").contains(" vm_operation=")
                .contains(" threads=");
            assertThat(registry.find(SafepointMetrics.SYNC).timers()).isNotEmpty()
                .allSatisfy(t -> assertThat(t.getId().getTag("operation")).isNotBlank());
            long counted = registry.find(SafepointMetrics.SYNC).timers().stream().mapToLong(Timer::count).sum();
            assertThat(counted).isGreaterThanOrEqualTo(lines.size());
        }
        assertThat(registry.find(SafepointMetrics.SYNC).timers()).as("removed at close").isEmpty();
        recording.stop();
        Path file = Files.createTempFile("safepoints", ".jfr");
        try {
            recording.dump(file);
            recording.close();
            List<RecordedEvent> events = RecordingFile.readAllEvents(file);
            assertThat(events).filteredOn(e -> e.getEventType().getName().equals(SafepointSyncEvent.NAME)).isNotEmpty()
                .allSatisfy(e -> {
                    assertThat(e.getString("operation")).isNotBlank();
                    assertThat(e.getDuration("syncTime")).isPositive();
                    assertThat(e.getInstant("syncStart")).isBeforeOrEqualTo(e.getStartTime());
                });
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /**
     * From HotSpot's counters: the same histogram and lines, the VM operation unnamed, and the ids those of the JVM's
     * own safepoint events, so that the analyzer joins the agent's events to a recording's JDK events.
     */
    @Test
    void fromHotSpotsCountersEverySafepointIsTimedWithTheJvmsIds() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        List<String> lines = new CopyOnWriteArrayList<>();
        Recording recording = new Recording();
        recording.enable("jdk.SafepointBegin").withThreshold(java.time.Duration.ZERO);
        recording.start();
        try (SafepointTiming timing = SafepointTiming.start(SafepointTiming.Source.COUNTERS,
            net.bytebuddy.agent.ByteBuddyAgent.install(), registry, 0, false, lines::add, 1000)) {
            assertThat(timing.summary()).isEqualTo("safepoint timing from HotSpot's counters, slow from 0.0 ms");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (lines.size() < 3 && System.nanoTime() < deadline) {
                System.gc();
                TimeUnit.MILLISECONDS.sleep(50); // a poll or more between two: one safepoint a read, mostly
            }
            assertThat(lines).as("lines within 30 s of System.gc()").hasSizeGreaterThanOrEqualTo(3);
            assertThat(lines).allSatisfy(l -> assertThat(l).startsWith("slow op=safepoint_sync duration_ms=")
                .contains(" vm_operation=unnamed safepoint_id="));
            assertThat(registry.find(SafepointMetrics.SYNC).tag("operation", "unnamed").timer()).isNotNull()
                .satisfies(t -> assertThat(t.count()).isGreaterThanOrEqualTo(lines.size()));
        }
        recording.stop();
        Path file = Files.createTempFile("safepoint-ids", ".jfr");
        try {
            recording.dump(file);
            recording.close();
            java.util.Set<Long> jvmIds = new java.util.HashSet<>();
            for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
                jvmIds.add(e.getLong("safepointId"));
            }
            java.util.regex.Pattern id = java.util.regex.Pattern.compile(" safepoint_id=([0-9]+)");
            List<Long> lineIds = new java.util.ArrayList<>();
            for (String l : lines) {
                if (!l.contains(" safepoints=")) { // a merged sync carries its last safepoint's id
                    java.util.regex.Matcher m = id.matcher(l);
                    assertThat(m.find()).isTrue();
                    lineIds.add(Long.parseLong(m.group(1)));
                }
            }
            assertThat(lineIds).isNotEmpty();
            assertThat(jvmIds).containsAll(lineIds);
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /**
     * The JFR stream runs on a daemon thread of the agent's: JFR's own startAsync thread is not a daemon, and it kept a
     * JVM whose main had returned from exiting (seen on JDK 25, where auto takes JFR's stream).
     */
    @Test
    void theStreamLeavesNoThreadThatKeepsTheJvmAlive() throws Exception {
        java.util.Set<Thread> before = nonDaemonThreads();
        try (SafepointTiming timing = SafepointTiming.start(new SimpleMeterRegistry(), Long.MAX_VALUE, false, l -> { }, 10)) {
            System.gc();
            java.util.Set<Thread> started = nonDaemonThreads();
            started.removeAll(before);
            assertThat(started).as("non-daemon threads the timing started").isEmpty();
            assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
                .contains("stallscope-safepoint-stream");
        }
    }

    private static java.util.Set<Thread> nonDaemonThreads() {
        java.util.Set<Thread> out = new java.util.HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (!t.isDaemon() && t.isAlive()) {
                out.add(t);
            }
        }
        return out;
    }

    /**
     * An operator's recording with no setting for the agent's events (default.jfc names none) records them, since an
     * event class is on by default: the timing's own stream must not change that by giving them a setting of its own
     * (a first version disabled them there, and AgentAtStartIT's broker recording came back without a single op).
     */
    @Test
    void anOperatorsRecordingStillRecordsTheAgentsEvents() throws Exception {
        Path file = Files.createTempFile("operator", ".jfr");
        try (SafepointTiming timing = SafepointTiming.start(new SimpleMeterRegistry(), Long.MAX_VALUE, true, l -> { }, 10);
             Recording operators = new Recording()) {
            operators.start();
            Registered before = new Registered();
            before.commit();
            Late late = new Late();
            late.commit();
            operators.stop();
            operators.dump(file);
            assertThat(RecordingFile.readAllEvents(file)).extracting(e -> e.getEventType().getName())
                .contains("stallscope.test.Registered", "stallscope.test.Late");
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /**
     * With the timing's stream the only recording, the agent treats the op events as off (no event made, ranked on the
     * broker's thread or committed); an operator's recording turns them on again for as long as it runs.
     */
    @Test
    void theAgentsOwnStreamAloneCountsAsNoRecording() throws Exception {
        assertThat(ForeignRecordings.onlyOwn()).as("no stream of the agent's").isFalse();
        try (SafepointTiming timing = SafepointTiming.start(new SimpleMeterRegistry(), Long.MAX_VALUE, true, l -> { }, 10)) {
            assertThat(ForeignRecordings.onlyOwn()).as("the stream alone").isTrue();
            try (Recording operators = new Recording()) {
                operators.start();
                assertThat(ForeignRecordings.onlyOwn()).as("an operator's recording running").isFalse();
                operators.stop();
            }
            assertThat(ForeignRecordings.onlyOwn()).as("the operator's stopped").isTrue();
        }
        assertThat(ForeignRecordings.onlyOwn()).as("the stream closed").isFalse();
    }
}
