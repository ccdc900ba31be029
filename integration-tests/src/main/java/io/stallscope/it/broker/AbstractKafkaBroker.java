package io.stallscope.it.broker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.Uuid;

/**
 * What a broker under test is, wherever its JVM runs: the work directory and its files, the ports on
 * 127.0.0.1, the configuration written before each start, ZooKeeper (2.8) or formatted KRaft storage,
 * and the wait until the broker answers. Subclasses say only how a JVM is launched, watched and stopped:
 * {@link LocalKafkaBroker} as a child process, the container implementation in a container.
 */
public abstract class AbstractKafkaBroker implements KafkaBroker {

    protected static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
    protected static final String TLS_PASSWORD = "stallscope";

    protected final BrokerSpec spec;
    protected final KafkaVersion version;
    protected final Path javaHome;
    protected final Path workDir;
    protected final Path dataDir;
    protected final BrokerConfigs.Endpoints ports;
    protected final AtomicInteger toolRuns = new AtomicInteger();
    protected BrokerConfigs.Tls tls;
    /** When the broker was last killed (SIGKILL), 0 once it answered again: see {@link #awaitZooKeeperSessionExpiry}. */
    protected long killedAtNanos;
    private Duration lastStart = Duration.ZERO;

    protected AbstractKafkaBroker(BrokerSpec spec, Path javaHome) {
        this.spec = spec;
        this.version = spec.version();
        this.javaHome = javaHome;
        this.workDir = spec.workDir() != null ? createDirs(spec.workDir().toAbsolutePath()) : allocateWorkDir(spec);
        this.dataDir = spec.dataDir() != null ? spec.dataDir() : workDir.resolve("data");
        this.ports = new BrokerConfigs.Endpoints(
                FreePorts.next(),
                version.usesKRaft() ? FreePorts.next() : 0,
                spec.sslListener() ? FreePorts.next() : 0,
                version.usesZooKeeper() ? FreePorts.next() : 0);
    }

    // --- what a subclass provides ---

    /** Launches the broker JVM ({@code kafka.Kafka serverProps}) and returns at once; {@link #start} waits. */
    protected abstract void launchBroker(Path serverProps, Path logConfig) throws IOException;

    /** Whether the broker JVM launched last is still alive. */
    protected abstract boolean brokerAlive();

    /** Why the broker is not alive, e.g. "broker JVM exited with code 1". */
    protected abstract String brokerExit();

    /** Launches ZooKeeper (2.8) from the broker's classpath and returns at once; {@link #start} waits. */
    protected abstract void launchZooKeeper(Path zkProps, Path zkLogConfig) throws IOException;

    protected abstract boolean zooKeeperAlive();

    /** Stops ZooKeeper at once, after it failed to start. */
    protected abstract void killZooKeeper();

    /** Runs a class of Kafka {@code kafka}'s jars to completion next to the broker, output to a file under tools/. */
    protected abstract ToolResult runJava(KafkaVersion kafka, String mainClass, List<String> args, Duration timeout,
                                          String label);

    /**
     * Whether {@link #runJava} runs on this host, where a format's output can be kept and copied ({@link StorageFormats});
     * otherwise every fresh broker runs the StorageTool itself.
     */
    protected boolean formatsOnThisHost() {
        return false;
    }

    /** Gets rid of every process, without waiting for a clean shutdown: when {@link #stop} itself failed. */
    protected abstract void forceStop();

    /** Names where the broker runs in messages, e.g. "in a child JVM" or "in container x". */
    protected abstract String where();

    // --- the shared life cycle ---

    @Override
    public synchronized void start() {
        if (isRunning()) {
            throw new IllegalStateException("Kafka " + version + " " + where() + " already running");
        }
        long t0 = System.nanoTime();
        event("start: Kafka " + version + " " + where() + ", java home " + javaHome);
        try {
            createDirs(dataDir);
            if (spec.sslListener() && tls == null) {
                tls = SelfSignedTls.create(javaHome, workDir.resolve("tls"), TLS_PASSWORD);
            }
            Path serverProps = workDir.resolve("server.properties");
            Files.writeString(serverProps, BrokerConfigs.render(serverProperties()));
            Path logConfig = workDir.resolve(LoggingConfigs.fileName(version, "broker"));
            Files.writeString(logConfig, LoggingConfigs.toFile(version, logFile(), "INFO"));

            if (version.usesZooKeeper() && spec.zooKeeperConnect() == null && !zooKeeperAlive()) {
                startZooKeeper();
            } else if (version.usesZooKeeper() && killedAtNanos != 0) {
                awaitZooKeeperSessionExpiry();
            }
            if (version.usesKRaft() && !Files.exists(dataDir.resolve("meta.properties"))) {
                formatStorage(serverProps);
            }
            launchBroker(serverProps, logConfig);
            event("start: launched " + where());
        } catch (IOException e) {
            stopQuietly();
            throw new UncheckedIOException("cannot start Kafka " + version + " " + where() + ", work dir " + workDir, e);
        } catch (RuntimeException e) {
            String diagnosis = "Kafka " + version + " " + where() + " did not start: " + e + "; work dir " + workDir
                    + "\n--- broker.stdout tail ---\n" + tail(stdoutFile(), 30);
            stopQuietly();
            throw new IllegalStateException(diagnosis, e);
        }
        awaitReady(t0);
    }

    private Map<String, String> serverProperties() {
        Map<String, String> props = BrokerConfigs.serverProperties(version, spec.nodeId(), ports, dataDir, tls,
                spec.serverProperties());
        if (spec.zooKeeperConnect() != null) {
            props.put("zookeeper.connect", spec.zooKeeperConnect());
        }
        return spec.joins() == null ? props : BrokerConfigs.brokerOnly(props, spec.joins().quorumVoters());
    }

    private void startZooKeeper() throws IOException {
        Path zkDir = createDirs(workDir.resolve("zookeeper"));
        Path zkProps = workDir.resolve("zookeeper.properties");
        Files.writeString(zkProps, BrokerConfigs.render(BrokerConfigs.zooKeeperProperties(ports.zooKeeperPort(), zkDir)));
        Path zkLogConfig = workDir.resolve(LoggingConfigs.fileName(version, "zookeeper"));
        Files.writeString(zkLogConfig, LoggingConfigs.toFile(version, zooKeeperLogFile(), "INFO"));
        launchZooKeeper(zkProps, zkLogConfig);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!FreePorts.isListening(ports.zooKeeperPort())) {
            if (!zooKeeperAlive() || System.nanoTime() > deadline) {
                String why = zooKeeperAlive() ? "did not listen within 30 s" : "exited";
                killZooKeeper();
                throw new IllegalStateException("ZooKeeper for Kafka " + version + " " + why + "\n--- zookeeper.log tail ---\n"
                        + tail(zooKeeperLogFile(), 40) + "--- zookeeper.stdout tail ---\n"
                        + tail(workDir.resolve("zookeeper.stdout"), 40));
            }
            sleep(100);
        }
    }

    /**
     * After a SIGKILL the dead broker's ephemeral /brokers/ids/N stays in ZooKeeper until its session
     * expires; a broker started earlier exits with "node already exists". Wait for that expiry.
     */
    private void awaitZooKeeperSessionExpiry() {
        long sessionMs = Long.parseLong(serverProperties().getOrDefault("zookeeper.session.timeout.ms", "18000"));
        long waitUntil = killedAtNanos + TimeUnit.MILLISECONDS.toNanos(sessionMs + 2000 /* tickTime */ + 1000);
        long left = waitUntil - System.nanoTime();
        if (left > 0) {
            event("start: waiting " + TimeUnit.NANOSECONDS.toMillis(left) + " ms for the killed broker's ZooKeeper session to expire");
            sleep(TimeUnit.NANOSECONDS.toMillis(left));
        }
    }

    private void formatStorage(Path serverProps) throws IOException {
        Path idFile = workDir.resolve("cluster.id");
        String clusterId;
        if (Files.exists(idFile)) {
            clusterId = Files.readString(idFile).trim();
        } else if (spec.joins() != null) {
            clusterId = spec.joins().clusterId();
            Files.writeString(idFile, clusterId + "\n");
        } else {
            clusterId = Uuid.randomUuid().toString();
            Files.writeString(idFile, clusterId + "\n");
        }
        if (formatsOnThisHost()) {
            Path template = StorageFormats.format(version, serverProperties(), workDir, clusterId,
                    args -> runJava(version, "kafka.tools.StorageTool", args, Duration.ofSeconds(90), "format-storage"));
            event("start: storage formatted as " + template + " (Kafka's StorageTool, made once per configuration)");
            return;
        }
        ToolResult r = runJava(version, "kafka.tools.StorageTool",
                List.of("format", "-t", clusterId, "-c", serverProps.toString(), "--ignore-formatted"),
                Duration.ofSeconds(90), "format-storage");
        if (!r.succeeded()) {
            throw new IllegalStateException("kafka.tools.StorageTool format failed for Kafka " + version + " " + where()
                    + " (exit " + r.exitCode() + "), work dir " + workDir + ":\n" + r.output());
        }
    }

    private void awaitReady(long t0) {
        long deadline = t0 + spec.startTimeout().toNanos();
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "3000");
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "5000");
        props.put(AdminClientConfig.CLIENT_ID_CONFIG, "stallscope-readiness");
        Admin admin = null;
        String lastProblem = "port " + ports.plaintextPort() + " not listening";
        try {
            while (System.nanoTime() < deadline) {
                if (!brokerAlive()) {
                    lastProblem = brokerExit();
                    break;
                }
                if (FreePorts.isListening(ports.plaintextPort())) {
                    if (admin == null) {
                        admin = Admin.create(props);
                    }
                    try {
                        Collection<Node> nodes = admin.describeCluster().nodes().get(3, TimeUnit.SECONDS);
                        if (nodes.stream().anyMatch(n -> n.id() == spec.nodeId())) {
                            lastStart = Duration.ofNanos(System.nanoTime() - t0);
                            killedAtNanos = 0;
                            event("start: ready after " + lastStart.toMillis() + " ms");
                            return;
                        }
                        lastProblem = "describeCluster answered without node " + spec.nodeId() + ": " + nodes;
                    } catch (Exception e) {
                        lastProblem = "describeCluster failed: " + e;
                    }
                }
                sleep(200);
            }
        } finally {
            if (admin != null) {
                admin.close(Duration.ofSeconds(2));
            }
        }
        event("start: not ready: " + lastProblem);
        String diagnosis = "Kafka " + version + " " + where() + " (" + javaHome + ") did not become ready within "
                + spec.startTimeout().toSeconds() + " s: " + lastProblem + "; work dir " + workDir
                + "\n--- broker.log tail ---\n" + tail(logFile(), 60)
                + "--- broker.stdout tail ---\n" + tail(stdoutFile(), 30);
        stopQuietly();
        throw new IllegalStateException(diagnosis);
    }

    protected void stopQuietly() {
        try {
            stop();
        } catch (RuntimeException e) {
            forceStop();
        }
    }

    @Override
    public synchronized void close() {
        stopQuietly();
    }

    // --- what the broker is ---

    @Override
    public BrokerSpec spec() {
        return spec;
    }

    /** The JDK the broker runs with. */
    public Path javaHome() {
        return javaHome;
    }

    @Override
    public String bootstrapServers() {
        return BrokerConfigs.HOST + ":" + ports.plaintextPort();
    }

    @Override
    public String sslBootstrapServers() {
        if (ports.sslPort() == 0) {
            throw new IllegalStateException("broker built without withSslListener()");
        }
        return BrokerConfigs.HOST + ":" + ports.sslPort();
    }

    @Override
    public Map<String, Object> sslClientProperties() {
        if (tls == null) {
            throw new IllegalStateException("no SSL listener (withSslListener()) or broker not started yet");
        }
        return Map.of(
                "bootstrap.servers", sslBootstrapServers(),
                "security.protocol", "SSL",
                "ssl.truststore.type", "PKCS12",
                "ssl.truststore.location", tls.trustStore().toString(),
                "ssl.truststore.password", tls.password(),
                "ssl.endpoint.identification.algorithm", "");
    }

    @Override
    public Path logFile() {
        return workDir.resolve("broker.log");
    }

    @Override
    public Path stdoutFile() {
        return workDir.resolve("broker.stdout");
    }

    public Path zooKeeperLogFile() {
        return workDir.resolve("zookeeper.log");
    }

    @Override
    public Path workDir() {
        return workDir;
    }

    @Override
    public Path dataDir() {
        return dataDir;
    }

    /** This node's controller, for {@link BrokerSpec.Builder#joinKRaftCluster}: {@code id@127.0.0.1:port}. */
    public String quorumVoters() {
        if (!version.usesKRaft() || spec.joins() != null) {
            throw new IllegalStateException("not a KRaft controller: " + this);
        }
        return spec.nodeId() + "@" + BrokerConfigs.HOST + ":" + ports.controllerPort();
    }

    /** The KRaft cluster id this node's storage was formatted with (known once it has started). */
    public String clusterId() {
        try {
            return Files.readString(workDir.resolve("cluster.id")).trim();
        } catch (IOException e) {
            throw new IllegalStateException("no cluster id yet (start the broker first): " + workDir, e);
        }
    }

    public BrokerConfigs.Endpoints ports() {
        return ports;
    }

    @Override
    public Duration lastStartDuration() {
        return lastStart;
    }

    /** {@code org.apache.kafka.tools} classes come from {@link #toolsVersion()}, the rest from the broker's version. */
    @Override
    public ToolResult runTool(String mainClass, List<String> args, Duration timeout) {
        KafkaVersion kafka = mainClass.startsWith("org.apache.kafka.tools.") ? toolsVersion() : version;
        return runJava(kafka, mainClass, args, timeout, mainClass.substring(mainClass.lastIndexOf('.') + 1));
    }

    /**
     * The Kafka version whose kafka-tools {@link #runTool} uses for {@code org.apache.kafka.tools} classes:
     * the broker's own, unless Maven Central lacks it (4.4.0: then 4.3.1).
     */
    public KafkaVersion toolsVersion() {
        return KafkaClasspath.toolsVersion(version);
    }

    /** A new numbered output file under tools/ for a tool run. */
    protected Path toolOutput(String label) {
        return createDirs(workDir.resolve("tools")).resolve(String.format("%02d-%s.out", toolRuns.incrementAndGet(), label));
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "{kafka " + version + ", " + bootstrapServers() + ", " + workDir + "}";
    }

    // --- helpers ---

    /** Appends a timestamped line to {@code harness.log} in the work dir: what the harness did when. */
    protected void event(String what) {
        try {
            Files.writeString(workDir.resolve("harness.log"), Instant.now() + " " + what + "\n",
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            // diagnostics only
        }
    }

    /** The last {@code lines} lines of a file, or a note that it does not exist. */
    public static String tail(Path file, int lines) {
        if (!Files.exists(file)) {
            return "(" + file + " does not exist)\n";
        }
        try {
            List<String> all = Files.readAllLines(file, StandardCharsets.ISO_8859_1);
            StringBuilder sb = new StringBuilder();
            all.subList(Math.max(0, all.size() - lines), all.size()).forEach(l -> sb.append(l).append('\n'));
            return sb.toString();
        } catch (IOException e) {
            return "(cannot read " + file + ": " + e + ")\n";
        }
    }

    protected static Path createDirs(Path dir) {
        try {
            return Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    protected static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static Path allocateWorkDir(BrokerSpec spec) {
        Path base = createDirs(HarnessDirs.brokers());
        for (int n = 1; n < 10_000; n++) {
            Path dir = base.resolve(spec.name() + "-" + spec.version() + "-" + n);
            try {
                return Files.createDirectory(dir);
            } catch (FileAlreadyExistsException e) {
                // taken, try the next number
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        throw new IllegalStateException("no free work directory name under " + base);
    }
}
