package io.stallscope.agent.runtime;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import net.bytebuddy.agent.ByteBuddyAgent;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.FileRecords;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import javax.management.ObjectName;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.lang.management.ManagementFactory;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent installed into this JVM, as attach would, timing real kafka-clients FileRecords and the
 * JDK's FileChannel.transferTo; read back through its Prometheus endpoint, JMX and a JFR recording.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AgentInProcessTest {
    private static final int APPENDS = 50;
    @TempDir
    static Path dir;
    private static Instrumentation inst;
    private static int port;

    @BeforeAll
    static void attach() {
        inst = ByteBuddyAgent.install();
        AgentRuntime.start("activate.main=.*,prometheus=127.0.0.1:0,jfr.threshold=0,slow.threshold=10s", inst,
            "attach");
        String status = System.getProperty(AgentRuntime.STATUS_PROPERTY);
        assertThat(status).startsWith("active: Stallscope");
        Matcher m = Pattern.compile("prometheus on http://127\\.0\\.0\\.1:(\\d+)/metrics").matcher(status);
        assertThat(m.find()).as(status).isTrue();
        port = Integer.parseInt(m.group(1));
    }

    @AfterAll
    static void cleanUp() {
        AgentRuntime.detach();
    }

    @Test
    @Order(1)
    void startupLineSaysWhatWasInstrumentedAndWhatNot() {
        String status = System.getProperty(AgentRuntime.STATUS_PROPERTY);
        assertThat(status).contains("records_append=org.apache.kafka.common.record.FileRecords.append(")
            .contains("transfer_to=sun.nio.ch.FileChannelImpl.transferTo(JJLjava/nio/channels/WritableByteChannel;)J")
            .contains("tls_transfer=org.apache.kafka.common.network.SslTransportLayer.transferFrom(")
            // no broker classes in a kafka-clients-only JVM: skipped, with the reason
            // the test JVM's command line names no server.properties
            .contains("log dirs: not known yet (learned from the first op)")
            // safepoint.timing=auto: JFR's events where a recording costs nothing (JDK 22+), else HotSpot's counters
            .contains(Runtime.version().feature() >= 22
                ? "safepoint timing, slow from 10000.0 ms (auto: this JDK's I/O events are built in)"
                : "safepoint timing from HotSpot's counters, slow from 10000.0 ms (auto: a JFR recording would")
            // Kafka 3.9.1 (kafka-clients) should have LogSegment: a mismatch, said as one
            .contains("segment_flush (not as the catalog expects: no class of [kafka.log.LogSegment, "
                + "org.apache.kafka.storage.internals.log.LogSegment] on the class path)")
            .doesNotContain("\n");
    }

    @Test
    @Order(2)
    void appendsAndTransfersAreTimedWithRoleBytesAndPartition() throws Exception {
        Path partitionDir = Files.createDirectories(dir.resolve("orders-7"));
        Path segment = partitionDir.resolve("00000000000000000000.log");
        Path copy = dir.resolve("copy.bin");
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try (Recording recording = new Recording()) {
            recording.enable("stallscope.RecordsAppend").withThreshold(java.time.Duration.ZERO);
            recording.enable("stallscope.TransferTo").withThreshold(java.time.Duration.ZERO);
            recording.start();
            Thread handler = new Thread(() -> {
                try (FileRecords records = FileRecords.open(segment.toFile())) {
                    for (int i = 0; i < APPENDS; i++) {
                        records.append(MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(new byte[1024])));
                    }
                    records.flush();
                } catch (Throwable t) {
                    failure.set(t);
                }
            }, "data-plane-kafka-request-handler-3");
            handler.start();
            handler.join();
            Thread network = new Thread(() -> {
                try (FileChannel in = FileChannel.open(segment);
                     FileChannel out = FileChannel.open(copy, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                    in.transferTo(0, in.size(), out);
                } catch (Throwable t) {
                    failure.set(t);
                }
            }, "data-plane-kafka-network-thread-1-PLAINTEXT-PLAINTEXT-0");
            network.start();
            network.join();
            recording.stop();
            Path jfr = dir.resolve("events.jfr");
            recording.dump(jfr);
            assertThat(failure.get()).isNull();

            List<RecordedEvent> events = RecordingFile.readAllEvents(jfr);
            List<RecordedEvent> appends = events.stream()
                .filter(e -> e.getEventType().getName().equals("stallscope.RecordsAppend")).collect(Collectors.toList());
            assertThat(appends).hasSize(APPENDS);
            RecordedEvent first = appends.get(0);
            assertThat(first.getString("op")).isEqualTo("records_append");
            assertThat(first.getString("threadRole")).isEqualTo("request_handler");
            assertThat(first.getString("topic")).isEqualTo("orders");
            assertThat(first.getInt("partition")).isEqualTo(7);
            assertThat(first.getLong("bytes")).isGreaterThan(1024);
            assertThat(first.getLong("opDuration")).isPositive();
            assertThat(first.getThread().getJavaName()).isEqualTo("data-plane-kafka-request-handler-3");

            List<RecordedEvent> transfers = events.stream()
                .filter(e -> e.getEventType().getName().equals("stallscope.TransferTo")).collect(Collectors.toList());
            assertThat(transfers).hasSize(1);
            assertThat(transfers.get(0).getString("threadRole")).isEqualTo("network");
            assertThat(transfers.get(0).getLong("bytes")).isEqualTo(Files.size(segment));
            assertThat(transfers.get(0).getString("path")).isEqualTo(segment.toString());
        }

        // time to safepoint is served from the JVM's first safepoint on: make some, as a broker's collector would
        String metrics = scrape();
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        while (!metrics.contains("\nstallscope_safepoint_sync_seconds_count{operation=") && System.nanoTime() < deadline) {
            System.gc();
            java.util.concurrent.TimeUnit.MILLISECONDS.sleep(200);
            metrics = scrape();
        }
        assertThat(count(metrics, "records_append", "request_handler")).isEqualTo(APPENDS);
        assertThat(count(metrics, "transfer_to", "network")).isEqualTo(1);
        assertThat(metrics).contains("stallscope_op_seconds_bucket{op=\"records_append\",role=\"request_handler\",le=\"0.00001\"}")
            .contains("le=\"10.0\"").doesNotContainPattern("le=\"[^\"]*E");
        // the test's classpath has Kafka's storage jars but no broker: the points it finds, no mitigations asked
        assertThat(metrics).containsPattern("stallscope_agent_info\\{jdk=\"[^\"]+\",kafka=\"[^\"]+\","
            + "mitigations=\"none\",mode=\"attach\",points=\"\\d+/23\",profile=\"off\",topic_labels=\"false\","
            + "version=\"[^\"]+\"} 1(\\.0)?\n");
        for (String[] row : io.stallscope.agent.docs.ReferenceTables.METRICS) {
            if (row[3].startsWith("with ")) {
                // topic.labels=true, profile=on, mitigate=: none is on here, and none of theirs is exported
                assertThat(metrics).as("docs/reference.md metric " + row[0] + " while off").doesNotContain("\n" + row[0]);
            } else {
                assertThat(metrics).as("docs/reference.md metric " + row[0]).contains("\n" + row[0]);
            }
        }
        ObjectName mbean = new ObjectName("io.stallscope:type=OpStats,op=records_append,role=request_handler");
        assertThat((Long) ManagementFactory.getPlatformMBeanServer().getAttribute(mbean, "Count")).isEqualTo(APPENDS);
    }

    @Test
    @Order(3)
    void theLogDirOfTheOpsIsLearnedWithItsFileSystemAsMetricMBeanAndEveryChunksEvent() throws Exception {
        // test 2's appends went to DIR/orders-7/...: DIR is the log dir, on the mount that holds it
        String logDir = dir.toAbsolutePath().normalize().toString();
        io.stallscope.agent.logdir.Mount mount = io.stallscope.agent.logdir.MountTable.read()
            .mountOf(dir.toRealPath().toString());
        Path jfr = dir.resolve("logdir.jfr");
        try (Recording recording = new Recording()) {
            recording.enable("stallscope.LogDir").with("period", "everyChunk");
            recording.start();
            recording.stop();
            recording.dump(jfr);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(jfr).stream()
            .filter(e -> e.getEventType().getName().equals("stallscope.LogDir")
                && logDir.equals(e.getString("logDir"))).collect(Collectors.toList());
        assertThat(events).as("a stallscope.LogDir event at the chunk's start or end").isNotEmpty();
        assertThat(events.get(0).getString("fileSystem")).isEqualTo(mount.fsType());
        assertThat(events.get(0).getString("device")).isEqualTo(mount.source());
        assertThat(events.get(0).getString("mountPoint")).isEqualTo(mount.mountPoint());

        assertThat(scrape()).contains("stallscope_log_dir_info{device=\"" + mount.source() + "\",fs_type=\""
            + mount.fsType() + "\",log_dir=\"" + logDir + "\"} 1");
        ObjectName mbean = new ObjectName("io.stallscope:type=LogDir,name=" + ObjectName.quote(logDir));
        assertThat(ManagementFactory.getPlatformMBeanServer().getAttribute(mbean, "FileSystem")).isEqualTo(mount.fsType());
    }

    @Test
    @Order(4)
    void aFailingSinkNeverReachesTheCallerAndIsCounted() throws Exception {
        long before = adviceErrors();
        SinkSwap.withFailingSink(() -> {
            try (FileRecords records = FileRecords.open(dir.resolve("orders-7/00000000000000000100.log").toFile())) {
                int written = records.append(MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(new byte[100])));
                assertThat(written).isPositive();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        assertThat(adviceErrors()).isEqualTo(before + 1);
    }

    @Test
    @Order(5)
    void secondAttachChangesNothingAndSaysSo() {
        AgentRuntime.start("prometheus=9999,activate.main=.*", inst, "attach");
        assertThat(System.getProperty(AgentRuntime.STATUS_PROPERTY)).startsWith("unchanged: already active");
    }

    @Test
    @Order(6)
    void detachRestoresTheCodeAndStopsServing() throws Exception {
        AgentRuntime.detach();
        assertThat(System.getProperty(AgentRuntime.STATUS_PROPERTY)).startsWith("detached: detached: restored");
        try (FileRecords records = FileRecords.open(dir.resolve("orders-7/00000000000000000200.log").toFile())) {
            records.append(MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(new byte[100])));
        }
        assertThat(SinkSwap.noSink()).isTrue();
        try {
            scrape();
            throw new AssertionError("the endpoint still answers after detach");
        } catch (IOException expected) {
            // connection refused: the endpoint is gone
        }
        // and attaching again works
        AgentRuntime.start("activate.main=.*", inst, "attach");
        assertThat(System.getProperty(AgentRuntime.STATUS_PROPERTY)).startsWith("active:");
    }

    private static long adviceErrors() throws Exception {
        Matcher m = Pattern.compile("stallscope_advice_errors_total\\{op=\"records_append\"} (\\S+)").matcher(scrape());
        return m.find() ? (long) Double.parseDouble(m.group(1)) : 0;
    }

    private static long count(String metrics, String op, String role) {
        Matcher m = Pattern.compile("stallscope_op_seconds_count\\{op=\"" + op + "\",role=\"" + role + "\"} (\\S+)")
            .matcher(metrics);
        return m.find() ? (long) Double.parseDouble(m.group(1)) : -1;
    }

    private static String scrape() throws IOException {
        HttpURLConnection c = (HttpURLConnection) new URL("http://127.0.0.1:" + port + "/metrics").openConnection();
        c.setConnectTimeout(2000);
        c.setReadTimeout(5000);
        if (c.getResponseCode() != 200) {
            throw new AssertionError("scrape answered " + c.getResponseCode() + ": "
                + new String(c.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
        }
        try (InputStream in = c.getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } finally {
            c.disconnect();
        }
    }
}
