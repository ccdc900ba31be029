package io.stallscope.it.broker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
 * A real Kafka broker of any supported version in a child JVM, from the Maven Central jars
 * ({@link KafkaClasspath}). 2.8 runs with a ZooKeeper child JVM from the same classpath; 3.3+ in
 * KRaft combined mode (storage formatted first). Everything listens on 127.0.0.1 only.
 *
 * <p>Work directory {@code target/brokers/<name>-<version>-<n>} (kept after the run for diagnosis):
 * {@code server.properties}, {@code broker.log} (log4j, INFO), {@code broker.stdout}, {@code data/}
 * (log.dirs), and for 2.8 {@code zookeeper/}, {@code zookeeper.log}.
 */
public final class LocalKafkaBroker implements KafkaBroker {

    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
    private static final String TLS_PASSWORD = "stallscope";

    private final BrokerSpec spec;
    private final KafkaVersion version;
    private final Path javaHome;
    private final Path workDir;
    private final Path dataDir;
    private final BrokerConfigs.Endpoints ports;
    private final AtomicInteger toolRuns = new AtomicInteger();
    private BrokerConfigs.Tls tls;
    private Process broker;
    private Process zooKeeper;
    private Duration lastStart = Duration.ZERO;
    private long killedAtNanos;

    public LocalKafkaBroker(BrokerSpec spec) {
        this.spec = spec;
        this.version = spec.version();
        this.javaHome = spec.javaHome() != null ? spec.javaHome() : KafkaJdks.defaultJdk();
        if (!Files.isExecutable(javaHome.resolve("bin/java"))) {
            throw new IllegalArgumentException("no bin/java under java home " + javaHome);
        }
        this.workDir = spec.workDir() != null ? createDirs(spec.workDir().toAbsolutePath()) : allocateWorkDir(spec);
        this.dataDir = workDir.resolve("data");
        this.ports = new BrokerConfigs.Endpoints(
                FreePorts.next(),
                version.usesKRaft() ? FreePorts.next() : 0,
                spec.sslListener() ? FreePorts.next() : 0,
                version.usesZooKeeper() ? FreePorts.next() : 0);
    }

    /** Shorthand for {@code new LocalKafkaBroker(BrokerSpec.builder(version).build())}. */
    public static LocalKafkaBroker of(KafkaVersion version) {
        return new LocalKafkaBroker(BrokerSpec.builder(version).build());
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

    private static Path createDirs(Path dir) {
        try {
            return Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public BrokerSpec spec() {
        return spec;
    }

    public Path javaHome() {
        return javaHome;
    }

    @Override
    public synchronized void start() {
        if (isRunning()) {
            throw new IllegalStateException("broker already running, pid " + broker.pid());
        }
        long t0 = System.nanoTime();
        event("start: Kafka " + version + " on " + javaHome);
        String classpath = KafkaClasspath.asString(version);
        try {
            createDirs(dataDir);
            if (spec.sslListener() && tls == null) {
                tls = SelfSignedTls.create(javaHome, workDir.resolve("tls"), TLS_PASSWORD);
            }
            Path serverProps = workDir.resolve("server.properties");
            Map<String, String> props = BrokerConfigs.serverProperties(version, spec.nodeId(), ports, dataDir, tls,
                    spec.serverProperties());
            if (spec.joins() != null) {
                props = BrokerConfigs.brokerOnly(props, spec.joins().quorumVoters());
            }
            Files.writeString(serverProps, BrokerConfigs.render(props));
            Path logConfig = workDir.resolve(LoggingConfigs.fileName(version, "broker"));
            Files.writeString(logConfig, LoggingConfigs.toFile(version, logFile(), "INFO"));

            if (version.usesZooKeeper() && (zooKeeper == null || !zooKeeper.isAlive())) {
                startZooKeeper(classpath);
            } else if (version.usesZooKeeper() && killedAtNanos != 0) {
                awaitZooKeeperSessionExpiry();
            }
            if (version.usesKRaft() && !Files.exists(dataDir.resolve("meta.properties"))) {
                formatStorage(classpath, serverProps);
            }

            List<String> cmd = new ArrayList<>();
            cmd.add(javaHome.resolve("bin/java").toString());
            cmd.add("-Xmx" + spec.heap());
            cmd.add("-Xms" + spec.heap());
            cmd.add("-XX:+UseG1GC");
            cmd.add("-XX:MaxGCPauseMillis=20");
            cmd.add("-Djava.awt.headless=true");
            cmd.add("-Dkafka.logs.dir=" + workDir);
            cmd.addAll(List.of(LoggingConfigs.systemProperties(version, logConfig)));
            cmd.addAll(spec.jvmArgs());
            cmd.add("-cp");
            cmd.add(classpath);
            cmd.add("kafka.Kafka");
            cmd.add(serverProps.toString());
            Files.writeString(workDir.resolve("broker.cmd"), String.join("\n", cmd) + "\n");
            ProcessBuilder pb = new ProcessBuilder(cmd).directory(workDir.toFile()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(stdoutFile().toFile()));
            pb.environment().putAll(spec.env());
            broker = pb.start();
            ChildProcesses.register(broker);
            event("start: broker JVM launched, pid " + broker.pid());
        } catch (IOException e) {
            stopQuietly();
            throw new UncheckedIOException("cannot start Kafka " + version + " in " + workDir, e);
        }
        awaitReady(t0);
    }

    private void startZooKeeper(String classpath) throws IOException {
        Path zkDir = createDirs(workDir.resolve("zookeeper"));
        Path zkProps = workDir.resolve("zookeeper.properties");
        Files.writeString(zkProps, BrokerConfigs.render(BrokerConfigs.zooKeeperProperties(ports.zooKeeperPort(), zkDir)));
        Path zkLogConfig = workDir.resolve(LoggingConfigs.fileName(version, "zookeeper"));
        Files.writeString(zkLogConfig, LoggingConfigs.toFile(version, workDir.resolve("zookeeper.log"), "INFO"));
        List<String> cmd = new ArrayList<>(List.of(javaHome.resolve("bin/java").toString(), "-Xmx256m",
                "-Djava.awt.headless=true", "-Dzookeeper.admin.enableServer=false"));
        cmd.addAll(List.of(LoggingConfigs.systemProperties(version, zkLogConfig)));
        cmd.addAll(List.of("-cp", classpath, "org.apache.zookeeper.server.quorum.QuorumPeerMain", zkProps.toString()));
        zooKeeper = new ProcessBuilder(cmd).directory(workDir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(workDir.resolve("zookeeper.stdout").toFile()))
                .start();
        ChildProcesses.register(zooKeeper);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!FreePorts.isListening(ports.zooKeeperPort())) {
            if (!zooKeeper.isAlive() || System.nanoTime() > deadline) {
                String why = zooKeeper.isAlive() ? "did not listen within 30 s" : "exited with " + zooKeeper.exitValue();
                destroy(zooKeeper, Duration.ZERO);
                throw new IllegalStateException("ZooKeeper for Kafka " + version + " " + why + "\n--- zookeeper.log tail ---\n"
                        + tail(workDir.resolve("zookeeper.log"), 40) + "--- zookeeper.stdout tail ---\n"
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
        long sessionMs = Long.parseLong(BrokerConfigs.serverProperties(version, spec.nodeId(), ports, dataDir, tls,
                spec.serverProperties()).getOrDefault("zookeeper.session.timeout.ms", "18000"));
        long waitUntil = killedAtNanos + TimeUnit.MILLISECONDS.toNanos(sessionMs + 2000 /* tickTime */ + 1000);
        long left = waitUntil - System.nanoTime();
        if (left > 0) {
            event("start: waiting " + TimeUnit.NANOSECONDS.toMillis(left) + " ms for the killed broker's ZooKeeper session to expire");
            sleep(TimeUnit.NANOSECONDS.toMillis(left));
        }
    }

    private void formatStorage(String classpath, Path serverProps) throws IOException {
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
        ToolResult r = runJava(version, "kafka.tools.StorageTool",
                List.of("format", "-t", clusterId, "-c", serverProps.toString(), "--ignore-formatted"),
                Duration.ofSeconds(60), "format-storage");
        if (!r.succeeded()) {
            throw new IllegalStateException("kafka.tools.StorageTool format failed for Kafka " + version + " (exit "
                    + r.exitCode() + "), work dir " + workDir + ":\n" + r.output());
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
                if (!broker.isAlive()) {
                    lastProblem = "broker JVM exited with code " + broker.exitValue();
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
        String diagnosis = "Kafka " + version + " (" + javaHome + ") did not become ready within "
                + spec.startTimeout().toSeconds() + " s: " + lastProblem + "; work dir " + workDir
                + "\n--- broker.log tail ---\n" + tail(logFile(), 60)
                + "--- broker.stdout tail ---\n" + tail(stdoutFile(), 30);
        stopQuietly();
        throw new IllegalStateException(diagnosis);
    }

    @Override
    public synchronized void stop() {
        if (isRunning()) {
            event("stop: SIGTERM to pid " + broker.pid());
        }
        destroy(broker, STOP_TIMEOUT);
        destroy(zooKeeper, STOP_TIMEOUT);
        event("stop: done");
    }

    @Override
    public synchronized void kill() {
        if (broker != null && broker.isAlive()) {
            event("kill: SIGKILL to pid " + broker.pid());
            broker.destroyForcibly();
            boolean gone = waitQuietly(broker, Duration.ofSeconds(10));
            killedAtNanos = System.nanoTime();
            event("kill: " + (gone ? "exited" : "still alive after 10 s"));
        }
        if (broker != null) {
            ChildProcesses.unregister(broker);
        }
    }

    @Override
    public synchronized void restart() {
        if (isRunning()) {
            event("restart: SIGTERM to pid " + broker.pid());
        }
        destroy(broker, STOP_TIMEOUT);
        start();
    }

    @Override
    public synchronized boolean isRunning() {
        return broker != null && broker.isAlive();
    }

    /** Exit code of the last broker JVM, or empty while it runs or before it ran. */
    public synchronized java.util.OptionalInt exitCode() {
        return broker == null || broker.isAlive() ? java.util.OptionalInt.empty() : java.util.OptionalInt.of(broker.exitValue());
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
    public synchronized long pid() {
        if (broker == null) {
            throw new IllegalStateException("broker not started");
        }
        return broker.pid();
    }

    /** The broker JVM's full command line, from /proc (ProcessHandle.Info may omit long ones). */
    public synchronized List<String> commandLine() {
        Path cmdline = Path.of("/proc", Long.toString(pid()), "cmdline");
        try {
            String raw = new String(Files.readAllBytes(cmdline), StandardCharsets.UTF_8);
            return List.of(raw.split("\0"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + cmdline, e);
        }
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

    @Override
    public ToolResult runTool(String mainClass, List<String> args, Duration timeout) {
        KafkaVersion tools = mainClass.startsWith("org.apache.kafka.tools.") ? KafkaClasspath.toolsVersion(version) : version;
        return runJava(tools, mainClass, args, timeout, mainClass.substring(mainClass.lastIndexOf('.') + 1));
    }

    /**
     * The Kafka version whose kafka-tools {@link #runTool} uses for {@code org.apache.kafka.tools} classes:
     * the broker's own, unless Maven Central lacks it (4.4.0: then 4.3.1).
     */
    public KafkaVersion toolsVersion() {
        return KafkaClasspath.toolsVersion(version);
    }

    private ToolResult runJava(KafkaVersion version, String mainClass, List<String> args, Duration timeout, String label) {
        long t0 = System.nanoTime();
        Path toolsDir = createDirs(workDir.resolve("tools"));
        Path out = toolsDir.resolve(String.format("%02d-%s.out", toolRuns.incrementAndGet(), label));
        Path logConfig = toolsDir.resolve(LoggingConfigs.fileName(version, "tools"));
        try {
            Files.writeString(logConfig, LoggingConfigs.toStderr(version, "WARN"));
            List<String> cmd = new ArrayList<>(List.of(javaHome.resolve("bin/java").toString(), "-Xmx512m",
                    "-Djava.awt.headless=true"));
            cmd.addAll(List.of(LoggingConfigs.systemProperties(version, logConfig)));
            cmd.addAll(List.of("-cp", KafkaClasspath.asString(version), mainClass));
            cmd.addAll(args);
            Process p = new ProcessBuilder(cmd).directory(workDir.toFile()).redirectErrorStream(true)
                    .redirectOutput(out.toFile()).start();
            ChildProcesses.register(p);
            try {
                if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    p.destroyForcibly();
                    p.waitFor(10, TimeUnit.SECONDS);
                    throw new IllegalStateException(mainClass + " did not finish within " + timeout.toSeconds()
                            + " s; output so far:\n" + tail(out, 40));
                }
            } finally {
                ChildProcesses.unregister(p);
            }
            return new ToolResult(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), out,
                    Duration.ofNanos(System.nanoTime() - t0));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + mainClass, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + mainClass, e);
        }
    }

    @Override
    public synchronized void close() {
        stopQuietly();
    }

    private void stopQuietly() {
        try {
            stop();
        } catch (RuntimeException e) {
            if (broker != null) broker.destroyForcibly();
            if (zooKeeper != null) zooKeeper.destroyForcibly();
        }
    }

    private static void destroy(Process p, Duration grace) {
        if (p == null) {
            return;
        }
        if (p.isAlive()) {
            if (grace.isZero()) {
                p.destroyForcibly();
            } else {
                p.destroy(); // SIGTERM: Kafka's shutdown hook runs a controlled shutdown
                if (!waitQuietly(p, grace)) {
                    p.destroyForcibly();
                }
            }
            waitQuietly(p, Duration.ofSeconds(10));
        }
        ChildProcesses.unregister(p);
    }

    private static boolean waitQuietly(Process p, Duration d) {
        try {
            return p.waitFor(d.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Appends a timestamped line to {@code harness.log} in the work dir: what the harness did when. */
    private void event(String what) {
        try {
            Files.writeString(workDir.resolve("harness.log"), java.time.Instant.now() + " " + what + "\n",
                    java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
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

    @Override
    public String toString() {
        return "LocalKafkaBroker{kafka " + version + ", " + bootstrapServers() + ", " + workDir + "}";
    }

}
