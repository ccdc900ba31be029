package io.stallscope.it.realdisk;

import io.stallscope.it.agent.AgentJar;
import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.FreePorts;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.LocalKafkaBroker;
import io.stallscope.it.broker.PrometheusScrape;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A stall of the whole device names no co-victim (issue 57): every partition's log dir on one loop-device XFS whose
 * writes the cgroup I/O controller limits to 20 IOPS for the whole broker, and every append forcing the disk
 * ({@code log.flush.interval.messages=1}: under cgroup v1 a buffered write(2) is not throttled, an fsync is), so
 * the request handlers' appends all wait on the device together. Eight producers, one partition each and one
 * request in flight, so no two appends of one partition overlap: whatever a slow op overlapped on another
 * partition shares only the device, and waited on it as the slow op did. The agent must name none of them: no
 * slow line behind another append or flush, no {@code stallscope_blocked_behind_seconds_total} at device scope,
 * nothing the network-read alert counts. Its slow lines themselves must be there (the device did stall them).
 * LINE's case and the roll spike still name their culprits: {@link LivePairingIT}, {@code RollFlushIT}. About 30 s.
 */
class DeviceStallCoVictimsIT {
    private static final Path DIR = Path.of(System.getProperty("stallscope.it.target", "target"), "co-victims").toAbsolutePath();
    private static final int PARTITIONS = 8;
    private static final int WRITE_IOPS = 20;
    private static final int SECONDS = 15;
    private static final Pattern BEHIND = Pattern.compile(": behind (\\S+) [0-9.]+ ms(?: so far)? (.+?) on ");

    @BeforeEach
    void requireRealDisk() {
        RealDiskRequirement.assumeAvailable();
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void appendsStalledByTheDeviceAreNotNamedAsEachOthersCause() throws Exception {
        Files.createDirectories(DIR);
        Path metadata = Files.createTempDirectory(DIR, "metadata");
        int prometheus = FreePorts.next();
        try (RealDisk disk = RealDisk.create(FsType.XFS, 1L << 30, DIR.resolve("disk"))) {
            BrokerSpec spec = BrokerSpec.builder("3.9.2").name("co-victims").heap("1g")
                .dataDir(disk.mountPoint().resolve("kafka")).launchWrapper(disk.launchWrapper())
                // the KRaft metadata log fsyncs every batch: off the throttled disk, so only the appends wait on it
                .serverProperty("metadata.log.dir", metadata.toString())
                .serverProperty("log.flush.interval.messages", "1")
                .serverProperty("num.io.threads", "8")
                .javaAgent(AgentJar.path(), "prometheus=127.0.0.1:" + prometheus)
                .build();
            try (LocalKafkaBroker broker = new LocalKafkaBroker(spec)) {
                broker.start();
                KafkaClients.createTopic(broker, "co", PARTITIONS, Map.of());
                disk.limit(IoLimits.NONE.withWriteIops(WRITE_IOPS));
                System.out.println("co-victims: disk " + disk.describe());
                long logFrom = Files.size(broker.logFile());
                long sent = produce(broker);
                PrometheusScrape scrape = PrometheusScrape.scrape(prometheus);
                disk.limit(IoLimits.NONE); // the clean shutdown's flushes need not wait
                String log = new String(Files.readAllBytes(broker.logFile()), StandardCharsets.ISO_8859_1).substring((int) logFrom);
                List<String> slow = log.lines().filter(l -> l.contains("slow op=")).toList();
                List<String> named = slow.stream().filter(l -> l.contains(": behind ")).toList();
                long handlerSlow = slow.stream().filter(l -> l.contains("role=request_handler")).count();
                System.out.println("co-victims: " + sent + " records acknowledged in " + SECONDS + " s, " + slow.size()
                    + " slow lines (" + handlerSlow + " on request handlers), " + named.size() + " naming a culprit");
                slow.stream().limit(5).forEach(System.out::println);
                named.stream().limit(10).forEach(System.out::println);

                assertThat(handlerSlow).as("slow-op lines on request handlers: the throttled device stalled the appends").isGreaterThanOrEqualTo(10);
                List<String> behindAnotherAppendOrFlush = new ArrayList<>();
                List<String> deviceScope = new ArrayList<>();
                for (String l : named) {
                    Matcher m = BEHIND.matcher(l);
                    if (m.find()) {
                        if (m.group(1).matches("records_append|log_append|segment_flush")) {
                            behindAnotherAppendOrFlush.add(l);
                        }
                        if (m.group(2).contains("device")) {
                            deviceScope.add(l);
                        }
                    }
                }
                assertThat(behindAnotherAppendOrFlush).as("slow lines naming another append or flush, each a co-victim of the device").isEmpty();
                assertThat(deviceScope).as("slow lines naming a culprit on the same device").isEmpty();
                assertThat(scrape.series("stallscope_blocked_behind_seconds_total").stream()
                    .filter(s -> "device".equals(s.labels().get("scope")) || "network".equals(s.labels().get("behind_role"))))
                    .as("pairings at device scope, or behind network threads (the alert's series)").isEmpty();
            }
        }
    }

    /** Eight producers, one partition each, one request in flight, acks=1, for {@link #SECONDS} s: the records acknowledged. */
    private static long produce(LocalKafkaBroker broker) throws Exception {
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong acked = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        List<Exception> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            int partition = p;
            Thread t = new Thread(() -> {
                Map<String, Object> c = KafkaClients.producerConfig(broker);
                c.put(ProducerConfig.ACKS_CONFIG, "1");
                c.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
                c.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
                c.put(ProducerConfig.LINGER_MS_CONFIG, 0);
                try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(c)) {
                    while (running.get()) {
                        producer.send(new ProducerRecord<>("co", partition, null, new byte[1024])).get(60, TimeUnit.SECONDS);
                        acked.incrementAndGet();
                    }
                } catch (Exception e) {
                    failures.add(e);
                }
            }, "co-victims-producer-" + p);
            t.start();
            threads.add(t);
        }
        TimeUnit.SECONDS.sleep(SECONDS);
        running.set(false);
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(90));
        }
        assertThat(failures).as("failed sends").isEmpty();
        return acked.get();
    }
}
