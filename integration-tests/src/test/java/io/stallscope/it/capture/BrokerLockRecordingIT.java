package io.stallscope.it.capture;

import com.fasterxml.jackson.databind.JsonNode;
import io.stallscope.it.agent.AgentJar;
import io.stallscope.it.bench.BrokerRecording;
import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.KafkaJdks;
import io.stallscope.it.broker.LocalKafkaBroker;
import io.stallscope.it.slowdisk.SlowDisk;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipFile;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A recording with async-profiler's lock events from a real broker, made here: the analyzer's fixtures had none
 * (async-profiler-2.9-kafka-broker-cpu-lock-alloc.jfr holds no lock event, whatever its name says).
 *
 * <p>A Kafka broker (LocalKafkaBroker, 127.0.0.1) with the agent as deployed (its stallscope.* JFR events from
 * 1 ms) and async-profiler's library (the one the agent jar carries) as {@code -agentpath}. Four producer
 * clients (acks=1, no linger, one request in flight each) write to one partition, so their requests reach
 * several request handlers that queue on the partition's log lock; the slow-disk shim makes one write(2) to the
 * active segment take {@link #WRITE_STALL} every {@link #STALL_EVERY} (simulated: only that the write is slow;
 * broker, lock and handlers are real). async-profiler records wall samples and every contended lock
 * ({@code lock=0}) with jfrsync, whose JDK recording carries the agent's events and no monitor events of its
 * own, so every jdk.JavaMonitorEnter in the file is async-profiler's.
 *
 * <p>The analyzer must show the top Kafka log lock's waits exactly as the raw events of the file (read with the
 * JDK's RecordingFile), marked recorded, and name it as the lock of the partition's log. A copy of the recording
 * stays in target/captures (async-profiler-lock-VERSION.jfr).
 */
class BrokerLockRecordingIT {
    /** -Dstallscope.lockrecording.version runs it on another Kafka (CI: 3.9.2). */
    static final String VERSION = System.getProperty("stallscope.lockrecording.version", "3.9.2");
    /** Where Kafka takes a log's lock, as the analyzer's LogLockPartitions knows it. */
    static final Pattern LOG_SITE = Pattern.compile("(kafka\\.log|org\\.apache\\.kafka\\.storage\\.internals\\.log)\\.(UnifiedLog|Log|LocalLog)\\$?\\..*");
    static final String TOPIC = "locks";
    static final Duration WRITE_STALL = Duration.ofMillis(30);
    static final long STALL_EVERY_MS = 150;
    static final int RECORD_SECONDS = 6;

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void asyncProfilersLockEventsOfABrokerAreTheAnalyzersRecordedWaitsOnTheNamedLogLock(@TempDir Path tmp) throws Exception {
        Path javaHome = KafkaJdks.defaultJdk();
        Path profiler = profilerLibrary(tmp);
        Path jfc = tmp.resolve("agent-events.jfc");
        Files.writeString(jfc, """
            <?xml version="1.0" encoding="UTF-8"?>
            <!-- The JDK recording of async-profiler's jfrsync: the agent's events (on by default); monitor and park
                 events off, so every lock event in the file is async-profiler's. -->
            <configuration version="2.0" label="stallscope agent events">
              <event name="jdk.JavaMonitorEnter"><setting name="enabled">false</setting></event>
              <event name="jdk.JavaMonitorWait"><setting name="enabled">false</setting></event>
              <event name="jdk.ThreadPark"><setting name="enabled">false</setting></event>
            </configuration>
            """);
        SlowDisk disk = SlowDisk.logTo(tmp.resolve("shim.log"))
            .slowWriteOnTrigger("/" + TOPIC + "-0/[0-9]{20}\\.log$", WRITE_STALL, tmp.resolve("stall-now"));
        BrokerSpec.Builder spec = BrokerSpec.builder(VERSION).name("lock-rec").javaHome(javaHome)
            .javaAgent(AgentJar.path(), "")
            .jvmArg("-agentpath:" + profiler);
        disk.applyTo(spec);
        Path out = tmp.resolve("broker-lock.jfr");
        int stalls = 0;
        try (KafkaBroker broker = new LocalKafkaBroker(spec.build())) {
            broker.start();
            KafkaClients.createTopic(broker, TOPIC, 1, Map.of());
            // Started and stopped with no producer running: a handler already blocked on the log lock when the
            // profiler starts, or still blocked when it stops, has wall samples but no lock event (async-profiler
            // writes one only for a wait it saw begin and end), so its wait would be inferred, not recorded.
            BrokerRecording.profiler(javaHome, broker.pid(), profiler,
                "start,event=wall,interval=5ms,lock=0,jfrsync=" + jfc + ",file=" + out);
            try (StallProducers producers = new StallProducers(broker, TOPIC, 4)) {
                StallCaptureIT.waitForAcks(producers, 200);
                long end = System.nanoTime() + RECORD_SECONDS * 1_000_000_000L;
                while (System.nanoTime() < end) {
                    if (disk.writeTaken()) {
                        disk.armWrite();
                        stalls++;
                    }
                    Thread.sleep(STALL_EVERY_MS);
                }
            } // closed: every producer's last send acknowledged, so no append is left waiting for the log lock
            BrokerRecording.profiler(javaHome, broker.pid(), profiler, "stop,file=" + out);
        }
        assertThat(stalls).as("write stalls armed").isGreaterThan(5);
        System.out.printf("broker-lock-recording Kafka %s: %d bytes, %d write stalls of %d ms%n", VERSION, Files.size(out),
            stalls, WRITE_STALL.toMillis());
        StallCaptureIT.keep(out, "async-profiler-lock-" + VERSION);

        AnalyzerRun report = AnalyzerRun.report(out, tmp);
        assertThat(report.eventCount("jdk.JavaMonitorEnter")).as("async-profiler's lock events").isPositive();
        JsonNode top = null;
        for (JsonNode c : report.json.path("contentions")) {
            if (LOG_SITE.matcher(c.path("site").asText()).matches() && top == null) top = c;
        }
        assertThat(top).as("a lock taken in Kafka's log classes: " + report.text).isNotNull();
        assertThat(top.path("source").asText()).as("where the waits came from (%d inferred from %d samples): %s",
            top.path("inferredWaits").asInt(), top.path("inferredSamples").asInt(), report.text).isEqualTo("recorded");
        assertThat(top.path("recordedWaits").asInt()).isEqualTo(top.path("waitCount").asInt()).isGreaterThan(5);

        // The same monitor (its address) in the raw events; the analyzer may split it by the method that took it.
        Matcher address = Pattern.compile("@0x([0-9a-f]+) ").matcher(top.path("lock").asText());
        assertThat(address.find()).as(top.path("lock").asText()).isTrue();
        long monitor = Long.parseUnsignedLong(address.group(1), 16);
        long rawCount = 0;
        long rawNanos = 0;
        for (RecordedEvent e : RecordingFile.readAllEvents(out)) {
            if (e.getEventType().getName().equals("jdk.JavaMonitorEnter") && e.getLong("address") == monitor) {
                rawCount++;
                rawNanos += e.getDuration().toNanos();
            }
        }
        long count = 0;
        double ms = 0;
        List<String> sites = new ArrayList<>();
        for (JsonNode c : report.json.path("contentions")) {
            if (c.path("lock").asText().contains("@0x" + address.group(1) + " ")) {
                count += c.path("waitCount").asLong();
                ms += c.path("totalWaitMs").asDouble();
                sites.add(c.path("site").asText());
            }
        }
        System.out.printf("broker-lock-recording: %s: raw %d events %.2f ms; analyzer %d waits %.2f ms at %s; logs %s%n",
            top.path("lock").asText(), rawCount, rawNanos / 1e6, count, ms, sites, top.path("logs"));
        assertThat(count).as("waits on the monitor").isEqualTo(rawCount);
        assertThat(ms).as("ms waited on the monitor").isCloseTo(rawNanos / 1e6, org.assertj.core.data.Offset.offset(0.01 * sites.size() + 0.001));

        // The agent's records_append spans of the holders name the log: the topic's only partition.
        assertThat(top.path("logs")).as(report.text).isNotEmpty();
        assertThat(top.at("/logs/0/log").asText()).isEqualTo(TOPIC + "-0");
        assertThat(top.at("/logs/0/waits").asInt()).isPositive().isLessThanOrEqualTo(top.path("waitCount").asInt());
        // First and with most of the waits: a holder is inferred from samples inside UnifiedLog.append, which cannot
        // say which log's lock a thread holds, so now and then one wait goes to another log being appended to then
        // (seen once in CI: "lock of logs locks-0 (139 of 1353 waits, 84% ...), __cluster_metadata-0 (1, <1%)").
        assertThat(report.text).containsPattern("lock of logs? " + Pattern.quote(TOPIC + "-0") + " \\(" + top.at("/logs/0/waits").asInt() + " of ");
    }

    /** async-profiler's library for this machine, from the agent jar that ships it. */
    private static Path profilerLibrary(Path dir) throws Exception {
        String entry = (System.getProperty("os.arch").contains("aarch64") ? "linux-arm64" : "linux-x64") + "/libasyncProfiler.so";
        Path lib = dir.resolve("libasyncProfiler.so");
        try (ZipFile jar = new ZipFile(AgentJar.path().toFile())) {
            var e = jar.getEntry(entry);
            assertThat(e).as(entry + " in " + AgentJar.path()).isNotNull();
            try (InputStream in = jar.getInputStream(e)) {
                Files.copy(in, lib, StandardCopyOption.REPLACE_EXISTING);
            }
        }
        return lib;
    }
}
