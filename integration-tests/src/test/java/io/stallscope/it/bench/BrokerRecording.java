package io.stallscope.it.bench;

import io.stallscope.it.agent.AgentJar;
import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.FixedRate;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.KafkaJdks;
import io.stallscope.it.broker.LocalKafkaBroker;
import io.stallscope.it.slowdisk.ShimCall;
import io.stallscope.it.slowdisk.SlowDisk;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Benchmark input for the analyzer, not a test (no CI runs it; {@code analyzer/bench/make-broker-recording.sh}
 * does): a recording of a real Kafka broker under load, made the way the analyzer's users make one.
 *
 * <p>The broker (LocalKafkaBroker, KRaft, 127.0.0.1 only) runs with the Stallscope agent ({@code -javaagent},
 * default options: its {@code stallscope.*} JFR events from 1 ms) and async-profiler's library as
 * {@code -agentpath}. After a warm-up the profiler is started in that JVM ({@code jcmd PID JVMTI.agent_load},
 * which is what {@code asprof start} does) in wall-clock mode with {@code jfrsync}: a JDK recording with the
 * JDK's {@code profile.jfc}, its monitor-enter threshold lowered from 10 ms to 1 ms so a handler queued a few
 * ms behind the partition lock is recorded with its {@code previousOwner}; stopped the same way after the
 * recorded seconds. The file is one JDK chunk (or a few) plus one async-profiler chunk.
 *
 * <p>Load: {@link #PRODUCERS} producer clients (acks=all, idempotent, 1 KiB records at a fixed rate each) on
 * topic {@value #TOPIC} ({@link #PARTITIONS} partitions, 1 MiB segments: a roll every second or two per
 * partition), one consumer in a group reading it from the start. Simulated (the LD_PRELOAD shim slowdisk.c;
 * the broker, its locks and its threads are real): every fsync/fdatasync of a file in a partition directory of
 * the topic waits {@link #FSYNC} first (the roll's producer-state snapshot runs on the request handler under
 * the partition lock before Kafka 3.7, the segment flush on the scheduler), and every 0.5 to 1.5 s the next
 * write to an active segment of the topic waits {@link #WRITE} first (inside the append, under the partition
 * lock, while other handlers queue for it).
 *
 * <p>Args: {@code OUT.jfr LIBASYNCPROFILER.so [SECONDS [KAFKA_VERSION [WARMUP_SECONDS]]]}; the agent jar from
 * {@code -Dstallscope.agent.jar}, the shim from {@code -Dstallscope.it.target} (see {@link AgentJar},
 * {@link SlowDisk}).
 */
public final class BrokerRecording {
    static final String TOPIC = "orders";
    static final int PARTITIONS = 4;
    static final int PRODUCERS = 6;
    static final int RECORDS_PER_SECOND = 400;
    static final int RECORD_BYTES = 1024;
    static final Duration FSYNC = Duration.ofMillis(20);
    static final Duration WRITE = Duration.ofMillis(25);
    /** jdk.JavaMonitorEnter threshold in the JDK recording (profile.jfc has 10 ms). */
    static final String MONITOR_THRESHOLD = "1 ms";

    private BrokerRecording() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: BrokerRecording OUT.jfr LIBASYNCPROFILER.so [SECONDS [KAFKA_VERSION [WARMUP_SECONDS]]]");
            System.exit(2);
        }
        Path out = Path.of(args[0]).toAbsolutePath();
        Path profiler = Path.of(args[1]).toAbsolutePath();
        int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 60;
        String version = args.length > 3 ? args[3] : "3.6.2";
        int warmUp = args.length > 4 ? Integer.parseInt(args[4]) : 15;
        Path work = out.resolveSibling(out.getFileName() + ".work");
        Files.createDirectories(work);
        Files.deleteIfExists(out);

        Path javaHome = KafkaJdks.defaultJdk();
        Path jfc = work.resolve("broker.jfc");
        Files.writeString(jfc, profileWithMonitorThreshold(Files.readString(javaHome.resolve("lib/jfr/profile.jfc")),
            MONITOR_THRESHOLD));
        Path shimLog = work.resolve("slowdisk.log");
        Files.deleteIfExists(shimLog);
        SlowDisk disk = SlowDisk.logTo(shimLog)
            .slowWriteOnTrigger("/" + TOPIC + "-[0-9]+/[0-9]{20}\\.log$", WRITE, work.resolve("stall-now"))
            .slowFsync("/" + TOPIC + "-[0-9]+/", FSYNC);
        BrokerSpec.Builder spec = BrokerSpec.builder(version).name("bench-rec").javaHome(javaHome)
            .javaAgent(AgentJar.path(), "")
            .jvmArg("-agentpath:" + profiler);
        disk.applyTo(spec);

        try (LocalKafkaBroker broker = new LocalKafkaBroker(spec.build())) {
            broker.start();
            System.out.println("broker: Kafka " + version + ", pid " + broker.pid() + ", work dir " + broker.workDir());
            KafkaClients.createTopic(broker, TOPIC, PARTITIONS, KafkaClients.SMALL_SEGMENTS);
            try (Load load = new Load(broker, disk)) {
                System.out.println("load: " + PRODUCERS + " producers x " + RECORDS_PER_SECOND + " records/s of "
                    + RECORD_BYTES + " B, acks=all, " + PARTITIONS + " partitions, 1 MiB segments; one consumer;"
                    + " warm-up " + warmUp + " s");
                Thread.sleep(warmUp * 1000L);
                load.check();
                int shimBefore = disk.calls().size();
                long ackedBefore = load.acked.get();
                long t0 = System.nanoTime();
                profiler(javaHome, broker.pid(), profiler, "start,event=wall,interval=1ms,jfrsync=" + jfc + ",file=" + out);
                System.out.println("profiler: started (wall 1 ms, jfrsync " + jfc.getFileName() + "), recording " + seconds + " s");
                Thread.sleep(seconds * 1000L);
                profiler(javaHome, broker.pid(), profiler, "stop,file=" + out);
                double took = (System.nanoTime() - t0) / 1e9;
                load.check();
                List<ShimCall> calls = disk.calls();
                Map<String, Integer> delayed = new TreeMap<>();
                for (ShimCall c : calls.subList(shimBefore, calls.size())) {
                    delayed.merge(c.call() + " on " + c.thread().replaceAll("-?[0-9]*$", "") + "*", 1, Integer::sum);
                }
                System.out.printf("recorded %.1f s: %d records acknowledged (%d/s), %d consumed in all, producer max"
                        + " latency %d ms; simulated delays in the shim's log meanwhile: %s%n", took,
                    load.acked.get() - ackedBefore, Math.round((load.acked.get() - ackedBefore) / took),
                    load.consumed.get(), load.maxLatencyMs.get(), delayed);
            }
        }
        if (!Files.isRegularFile(out) || Files.size(out) == 0) {
            throw new IllegalStateException("the profiler wrote no " + out + "; see the broker's stdout");
        }
        System.out.println("wrote " + Files.size(out) + " bytes to " + out);
    }

    /** The JDK's profile.jfc with jdk.JavaMonitorEnter's threshold set to {@code threshold}. */
    static String profileWithMonitorThreshold(String profileJfc, String threshold) {
        Matcher m = Pattern.compile("(<event name=\"jdk\\.JavaMonitorEnter\">.*?<setting name=\"threshold\"[^>]*>)([^<]*)(<)",
            Pattern.DOTALL).matcher(profileJfc);
        if (!m.find()) {
            throw new IllegalStateException("no jdk.JavaMonitorEnter threshold in profile.jfc");
        }
        return profileJfc.substring(0, m.start(2)) + threshold + profileJfc.substring(m.end(2));
    }

    /**
     * Runs an async-profiler command in the broker's JVM: the library is already loaded ({@code -agentpath}),
     * so JVMTI.agent_load calls its Agent_OnAttach with the command, as asprof does.
     */
    public static void profiler(Path javaHome, long pid, Path library, String command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(javaHome.resolve("bin/jcmd").toString(), Long.toString(pid), "JVMTI.agent_load",
            library.toString(), "\"" + command + "\"").redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0 || !output.contains("return code: 0")) {
            throw new IllegalStateException("async-profiler '" + command + "' failed: " + output.strip());
        }
    }

    /** Producers, a consumer and the armed write stalls, each on its own thread, until closed. */
    static final class Load implements AutoCloseable {
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicLong acked = new AtomicLong();
        final AtomicLong consumed = new AtomicLong();
        final AtomicLong maxLatencyMs = new AtomicLong();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final List<Thread> threads = new ArrayList<>();

        Load(LocalKafkaBroker broker, SlowDisk disk) {
            for (int i = 0; i < PRODUCERS; i++) {
                Map<String, Object> config = KafkaClients.producerConfig(broker);
                config.put("client.id", "bench-producer-" + i);
                config.put("linger.ms", 2);
                int seed = i;
                start("bench-producer-" + i, () -> produce(config, seed));
            }
            Map<String, Object> consumer = KafkaClients.consumerConfig(broker);
            consumer.put(ConsumerConfig.GROUP_ID_CONFIG, "bench-readers");
            consumer.put(ConsumerConfig.CLIENT_ID_CONFIG, "bench-consumer");
            consumer.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, true);
            consumer.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            start("bench-consumer", () -> consume(consumer));
            start("bench-write-stalls", () -> armWrites(disk));
        }

        private void start(String name, ThrowingRunnable body) {
            Thread t = new Thread(() -> {
                try {
                    body.run();
                } catch (Throwable e) {
                    if (!stop.get()) {
                        failure.compareAndSet(null, e);
                    }
                }
            }, name);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }

        private void produce(Map<String, Object> config, int seed) {
            Random random = new Random(seed);
            byte[][] values = new byte[64][RECORD_BYTES];
            for (byte[] v : values) {
                random.nextBytes(v);
            }
            FixedRate rate = new FixedRate(RECORDS_PER_SECOND);
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
                for (long i = 0; !stop.get() && rate.awaitSend(i); i++) {
                    long sent = System.nanoTime();
                    producer.send(new ProducerRecord<>(TOPIC, values[(int) (i % values.length)]), (md, e) -> {
                        if (e != null) {
                            if (!stop.get()) {
                                failure.compareAndSet(null, e);
                            }
                            return;
                        }
                        acked.incrementAndGet();
                        maxLatencyMs.accumulateAndGet((System.nanoTime() - sent) / 1_000_000, Math::max);
                    });
                }
            }
        }

        private void consume(Map<String, Object> config) {
            try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
                consumer.subscribe(List.of(TOPIC));
                while (!stop.get()) {
                    consumed.addAndGet(consumer.poll(Duration.ofMillis(200)).count());
                }
            }
        }

        private void armWrites(SlowDisk disk) throws Exception {
            while (!stop.get()) {
                Thread.sleep(ThreadLocalRandom.current().nextLong(500, 1500));
                if (disk.writeTaken()) {
                    disk.armWrite();
                }
            }
        }

        void check() {
            Throwable t = failure.get();
            if (t != null) {
                throw new IllegalStateException("load failed: " + t, t);
            }
        }

        @Override
        public void close() throws Exception {
            stop.set(true);
            for (Thread t : threads) {
                t.join(30_000);
            }
        }
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }
}
