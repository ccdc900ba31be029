package io.stallscope.it.container;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.async.ResultCallback;
import io.stallscope.it.broker.BrokerConfigs;
import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.FreePorts;
import io.stallscope.it.broker.HarnessDirs;
import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.KafkaClasspath;
import io.stallscope.it.broker.KafkaJdks;
import io.stallscope.it.broker.KafkaVersion;
import io.stallscope.it.broker.LocalKafkaBroker;
import io.stallscope.it.broker.LoggingConfigs;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.Uuid;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.BindMode;
import org.testcontainers.containers.Container;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real Kafka broker in a container (Testcontainers, against Docker or podman's Docker API), from
 * the image {@link ContainerImages#kafkaImage} gives for its version. It is started the way an operator
 * starts one: the image's {@code kafka-run-class.sh kafka.Kafka server.properties} with the spec's JVM
 * arguments in {@code KAFKA_OPTS} (so {@code -javaagent:...} goes where operators put it), the heap in
 * {@code KAFKA_HEAP_OPTS}, and the spec's environment (e.g. {@code LD_PRELOAD}).
 *
 * <p>Host networking, everything on 127.0.0.1: clients on the host reach it exactly as they reach a
 * {@link LocalKafkaBroker}, and nothing goes to a bridge address. The work directory
 * ({@code target/brokers/<name>-<version>-<n>}, same files as the local broker's) is mounted at its host
 * path, so {@link #logFile()} and {@link #dataDir()} are read from the host while the broker writes them.
 * Host paths named in the spec's JVM arguments and environment values (the agent jar, a JFR file's
 * directory, a preload library) are mounted at the same paths too, so one {@link BrokerSpec} means the
 * same in either implementation. 2.8 gets a ZooKeeper container from the same image.
 *
 * <p>Nothing reaps containers with Ryuk off: {@link #close()} removes them, and a shutdown hook removes
 * what a crashed test left.
 */
public final class ContainerKafkaBroker implements KafkaBroker {

    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
    private static final String TLS_PASSWORD = "stallscope";
    private static final String LABEL = "io.stallscope.it";
    private static final Pattern HOST_PATH = Pattern.compile("(?<![\\w.])(/[\\w.+@%-]+(?:/[\\w.+@%-]+)*)");

    private final BrokerSpec spec;
    private final KafkaVersion version;
    private final Path javaHome;
    private final Path workDir;
    private final Path dataDir;
    private final BrokerConfigs.Endpoints ports;
    private final AtomicInteger toolRuns = new AtomicInteger();
    private final AtomicInteger containerRuns = new AtomicInteger();
    private BrokerConfigs.Tls tls;
    private GenericContainer<?> broker;
    private GenericContainer<?> zooKeeper;
    private Duration lastStart = Duration.ZERO;
    private long killedAtNanos;

    public ContainerKafkaBroker(BrokerSpec spec) {
        this.spec = spec;
        this.version = spec.version();
        this.javaHome = realPath(spec.javaHome() != null ? spec.javaHome() : KafkaJdks.defaultJdk());
        if (ContainerImages.source() == ContainerImages.Source.LOCAL && !ContainerImages.jdksInBaseImage().contains(javaHome)) {
            throw new IllegalArgumentException("java home " + javaHome + " is not in " + ContainerImages.BASE_IMAGE
                    + " (it has " + ContainerImages.jdksInBaseImage() + ")");
        }
        this.workDir = spec.workDir() != null ? createDirs(spec.workDir().toAbsolutePath()) : allocateWorkDir(spec);
        this.dataDir = workDir.resolve("data");
        this.ports = new BrokerConfigs.Endpoints(
                FreePorts.next(),
                version.usesKRaft() ? FreePorts.next() : 0,
                spec.sslListener() ? FreePorts.next() : 0,
                version.usesZooKeeper() ? FreePorts.next() : 0);
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

    @Override
    public BrokerSpec spec() {
        return spec;
    }

    /** The JDK the broker runs with, at the same path inside the image as on the host. */
    public Path javaHome() {
        return javaHome;
    }

    @Override
    public synchronized void start() {
        if (isRunning()) {
            throw new IllegalStateException("broker container already running: " + broker.getContainerName());
        }
        long t0 = System.nanoTime();
        String image = ContainerImages.kafkaImage(version);
        event("start: Kafka " + version + " in " + image + " on " + javaHome);
        try {
            createDirs(dataDir);
            if (spec.sslListener() && tls == null) {
                tls = ContainerTls.create(javaHome, workDir.resolve("tls"), TLS_PASSWORD);
            }
            Path serverProps = workDir.resolve("server.properties");
            Files.writeString(serverProps, BrokerConfigs.render(
                    BrokerConfigs.serverProperties(version, spec.nodeId(), ports, dataDir, tls, spec.serverProperties())));
            Path logConfig = workDir.resolve(LoggingConfigs.fileName(version, "broker"));
            Files.writeString(logConfig, LoggingConfigs.toFile(version, logFile(), "INFO"));

            if (version.usesZooKeeper() && (zooKeeper == null || !zooKeeper.isRunning())) {
                startZooKeeper(image);
            } else if (version.usesZooKeeper() && killedAtNanos != 0) {
                awaitZooKeeperSessionExpiry();
            }
            if (version.usesKRaft() && !Files.exists(dataDir.resolve("meta.properties"))) {
                formatStorage(image, serverProps);
            }

            Map<String, String> env = new LinkedHashMap<>();
            env.put("KAFKA_HEAP_OPTS", "-Xmx" + spec.heap() + " -Xms" + spec.heap());
            env.put("KAFKA_JVM_PERFORMANCE_OPTS", "-XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true");
            env.put("KAFKA_LOG4J_OPTS", String.join(" ", LoggingConfigs.systemProperties(version, logConfig)));
            env.put("KAFKA_OPTS", kafkaOpts(spec.jvmArgs()));
            env.put("LOG_DIR", workDir.toString());
            env.putAll(spec.env());
            broker = container(image, "broker", env, List.of("kafka.Kafka", serverProps.toString()));
            broker.withLogConsumer(frame -> append(stdoutFile(), frame.getBytes()));
            Files.writeString(workDir.resolve("broker.cmd"), describe(image, env, List.of(ContainerImages.RUN_CLASS,
                    "kafka.Kafka", serverProps.toString())));
            broker.start();
            event("start: container " + broker.getContainerName() + " running, host pid " + pid());
        } catch (IOException e) {
            stopQuietly();
            throw new UncheckedIOException("cannot start Kafka " + version + " in a container, work dir " + workDir, e);
        } catch (RuntimeException e) {
            String diagnosis = "Kafka " + version + " container did not start: " + e + "; work dir " + workDir
                    + "\n--- broker.stdout tail ---\n" + LocalKafkaBroker.tail(stdoutFile(), 30);
            stopQuietly();
            throw new IllegalStateException(diagnosis, e);
        }
        awaitReady(t0);
    }

    /** {@code KAFKA_OPTS} is split on whitespace by kafka-run-class.sh: an argument with a space cannot pass. */
    static String kafkaOpts(List<String> jvmArgs) {
        for (String a : jvmArgs) {
            if (a.chars().anyMatch(Character::isWhitespace)) {
                throw new IllegalArgumentException("a JVM argument with whitespace cannot go through KAFKA_OPTS: '" + a + "'");
            }
        }
        return String.join(" ", jvmArgs);
    }

    private GenericContainer<?> container(String image, String role, Map<String, String> env, List<String> command) {
        GenericContainer<?> c = new GenericContainer<>(DockerImageName.parse(image))
                .withNetworkMode("host") // loopback only: the broker binds 127.0.0.1 of the host
                .withEnv(env)
                .withCommand(command.toArray(String[]::new))
                .withLabel(LABEL, "true")
                .withFileSystemBind(workDir.toString(), workDir.toString(), BindMode.READ_WRITE)
                .withCreateContainerCmdModifier(cmd -> cmd.withName(containerName(role)));
        if (ContainerImages.source() == ContainerImages.Source.LOCAL) {
            c.withEnv("JAVA_HOME", javaHome.toString());
        } else {
            // The official images run as an unprivileged user; the work dir belongs to the host's user.
            c.withCreateContainerCmdModifier(cmd -> cmd.withUser("0").withEntrypoint(ContainerImages.RUN_CLASS));
        }
        for (Mount m : hostMounts(spec, workDir, javaHome)) {
            c.withFileSystemBind(m.path().toString(), m.path().toString(), m.readOnly() ? BindMode.READ_ONLY : BindMode.READ_WRITE);
        }
        ContainerReaper.track(c);
        return c;
    }

    private String containerName(String role) {
        return "stallscope-" + workDir.getFileName() + "-" + role + "-" + containerRuns.incrementAndGet();
    }

    record Mount(Path path, boolean readOnly) {
    }

    /**
     * Host paths the spec names (in JVM arguments and environment values) that the container must see at
     * the same path: existing files read-only (the agent jar, a preload library), else the existing parent
     * directory read-write (where a JFR file or a dump is to be written). Paths in the work dir or the JDK
     * are there already.
     */
    static List<Mount> hostMounts(BrokerSpec spec, Path workDir, Path javaHome) {
        List<String> texts = new ArrayList<>(spec.jvmArgs());
        texts.addAll(spec.env().values());
        List<Mount> mounts = new ArrayList<>();
        for (String text : texts) {
            Matcher m = HOST_PATH.matcher(text);
            while (m.find()) {
                Path p = Path.of(m.group(1)).normalize();
                Mount mount;
                if (Files.isRegularFile(p)) {
                    mount = new Mount(p, true);
                } else if (p.getParent() != null && Files.isDirectory(p.getParent()) && !p.getParent().equals(Path.of("/"))) {
                    mount = new Mount(p.getParent(), false);
                } else {
                    continue;
                }
                Path mp = mount.path();
                if (mp.startsWith(workDir) || mp.startsWith(javaHome) || mp.startsWith(Path.of("/usr/lib/jvm"))) {
                    continue;
                }
                if (mounts.stream().anyMatch(o -> mp.startsWith(o.path()))) {
                    continue;
                }
                mounts.removeIf(o -> o.path().startsWith(mp));
                mounts.add(mount);
            }
        }
        return mounts;
    }

    private void startZooKeeper(String image) throws IOException {
        Path zkDir = createDirs(workDir.resolve("zookeeper"));
        Path zkProps = workDir.resolve("zookeeper.properties");
        Files.writeString(zkProps, BrokerConfigs.render(BrokerConfigs.zooKeeperProperties(ports.zooKeeperPort(), zkDir)));
        Path zkLogConfig = workDir.resolve(LoggingConfigs.fileName(version, "zookeeper"));
        Files.writeString(zkLogConfig, LoggingConfigs.toFile(version, workDir.resolve("zookeeper.log"), "INFO"));
        Map<String, String> env = new LinkedHashMap<>();
        env.put("KAFKA_HEAP_OPTS", "-Xmx256m");
        env.put("KAFKA_LOG4J_OPTS", String.join(" ", LoggingConfigs.systemProperties(version, zkLogConfig)));
        env.put("KAFKA_OPTS", "-Dzookeeper.admin.enableServer=false");
        env.put("LOG_DIR", workDir.toString());
        zooKeeper = container(image, "zookeeper", env,
                List.of("org.apache.zookeeper.server.quorum.QuorumPeerMain", zkProps.toString()));
        zooKeeper.withLogConsumer(frame -> append(workDir.resolve("zookeeper.stdout"), frame.getBytes()));
        zooKeeper.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!FreePorts.isListening(ports.zooKeeperPort())) {
            if (!zooKeeper.isRunning() || System.nanoTime() > deadline) {
                String why = zooKeeper.isRunning() ? "did not listen within 30 s" : "exited";
                removeQuietly(zooKeeper);
                throw new IllegalStateException("ZooKeeper container for Kafka " + version + " " + why
                        + "\n--- zookeeper.log tail ---\n" + LocalKafkaBroker.tail(workDir.resolve("zookeeper.log"), 40)
                        + "--- zookeeper.stdout tail ---\n" + LocalKafkaBroker.tail(workDir.resolve("zookeeper.stdout"), 40));
            }
            sleep(100);
        }
    }

    /** A killed broker's ZooKeeper registration outlives it until its session expires (see LocalKafkaBroker). */
    private void awaitZooKeeperSessionExpiry() {
        long sessionMs = Long.parseLong(BrokerConfigs.serverProperties(version, spec.nodeId(), ports, dataDir, tls,
                spec.serverProperties()).getOrDefault("zookeeper.session.timeout.ms", "18000"));
        long left = killedAtNanos + TimeUnit.MILLISECONDS.toNanos(sessionMs + 3000) - System.nanoTime();
        if (left > 0) {
            event("start: waiting " + TimeUnit.NANOSECONDS.toMillis(left) + " ms for the killed broker's ZooKeeper session");
            sleep(TimeUnit.NANOSECONDS.toMillis(left));
        }
    }

    private void formatStorage(String image, Path serverProps) throws IOException {
        Path idFile = workDir.resolve("cluster.id");
        String clusterId;
        if (Files.exists(idFile)) {
            clusterId = Files.readString(idFile).trim();
        } else {
            clusterId = Uuid.randomUuid().toString();
            Files.writeString(idFile, clusterId + "\n");
        }
        ToolResult r = runOnce(image, version, "kafka.tools.StorageTool",
                List.of("format", "-t", clusterId, "-c", serverProps.toString(), "--ignore-formatted"),
                Duration.ofSeconds(90), "format-storage");
        if (!r.succeeded()) {
            throw new IllegalStateException("kafka.tools.StorageTool format failed in a container for Kafka " + version
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
                if (!broker.isRunning()) {
                    lastProblem = "broker container exited with " + exitCodeOf(broker);
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
        String diagnosis = "Kafka " + version + " in container " + broker.getContainerName() + " did not become ready within "
                + spec.startTimeout().toSeconds() + " s: " + lastProblem + "; work dir " + workDir
                + "\n--- broker.log tail ---\n" + LocalKafkaBroker.tail(logFile(), 60)
                + "--- broker.stdout tail ---\n" + LocalKafkaBroker.tail(stdoutFile(), 30);
        stopQuietly();
        throw new IllegalStateException(diagnosis);
    }

    private static String exitCodeOf(GenericContainer<?> c) {
        try {
            Long code = c.getCurrentContainerInfo().getState().getExitCodeLong();
            return "code " + code;
        } catch (RuntimeException e) {
            return "unknown code (" + e.getMessage() + ")";
        }
    }

    /** Graceful: the engine's stop (SIGTERM to the JVM, Kafka's controlled shutdown), 30 s, then SIGKILL; then removed. */
    @Override
    public synchronized void stop() {
        if (broker != null) {
            event("stop: SIGTERM to container " + broker.getContainerName());
        }
        stopAndRemove(broker);
        broker = null;
        stopAndRemove(zooKeeper);
        zooKeeper = null;
        event("stop: done");
    }

    private static void stopAndRemove(GenericContainer<?> c) {
        if (c == null) {
            return;
        }
        try {
            if (c.isRunning()) {
                DockerClientFactory.instance().client().stopContainerCmd(c.getContainerId())
                        .withTimeout((int) STOP_TIMEOUT.toSeconds()).exec();
            }
        } catch (RuntimeException e) {
            // already gone: removal below still runs
        }
        removeQuietly(c);
    }

    private static void removeQuietly(GenericContainer<?> c) {
        try {
            c.stop(); // Testcontainers: kill if still running, then remove with its volumes
        } catch (RuntimeException e) {
            // nothing left to remove
        }
        ContainerReaper.untrack(c);
    }

    @Override
    public synchronized void kill() {
        if (broker != null && broker.isRunning()) {
            event("kill: SIGKILL to container " + broker.getContainerName());
            DockerClientFactory.instance().client().killContainerCmd(broker.getContainerId()).withSignal("KILL").exec();
            killedAtNanos = System.nanoTime();
            event("kill: done");
        }
        if (broker != null) {
            removeQuietly(broker);
            broker = null;
        }
    }

    @Override
    public synchronized void restart() {
        if (broker != null) {
            event("restart: SIGTERM to container " + broker.getContainerName());
        }
        stopAndRemove(broker);
        broker = null;
        start();
    }

    @Override
    public synchronized boolean isRunning() {
        return broker != null && broker.isRunning();
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

    /** The broker JVM's process id on the host (the engine's State.Pid: the entrypoint execs the JVM). */
    @Override
    public synchronized long pid() {
        if (broker == null) {
            throw new IllegalStateException("broker not started");
        }
        InspectContainerResponse info = DockerClientFactory.instance().client().inspectContainerCmd(broker.getContainerId()).exec();
        Long pid = info.getState().getPidLong();
        if (pid == null || pid <= 0) {
            throw new IllegalStateException("container " + broker.getContainerName() + " has no process: " + info.getState());
        }
        return pid;
    }

    /** The broker JVM's process id inside its container, from the host's /proc (NSpid), as {@code jcmd} there sees it. */
    public synchronized long pidInContainer() {
        long hostPid = pid();
        Path status = Path.of("/proc", Long.toString(hostPid), "status");
        try {
            for (String line : Files.readAllLines(status)) {
                if (line.startsWith("NSpid:")) {
                    String[] ids = line.substring(6).trim().split("\\s+");
                    return Long.parseLong(ids[ids.length - 1]);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + status + " (is the engine on another machine?)", e);
        }
        throw new IllegalStateException("no NSpid in " + status);
    }

    /** Runs a command inside the running broker container (docker exec), e.g. the agent's attach with the image's JDK. */
    public synchronized Container.ExecResult exec(String... command) {
        if (broker == null || !broker.isRunning()) {
            throw new IllegalStateException("broker container not running");
        }
        try {
            Container.ExecResult r = broker.execInContainer(command);
            event("exec: " + String.join(" ", command) + " -> exit " + r.getExitCode());
            return r;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Copies a host file into the running broker container (docker cp), e.g. the agent jar before an attach. */
    public synchronized void copyIntoContainer(Path hostFile, String containerPath) {
        if (broker == null || !broker.isRunning()) {
            throw new IllegalStateException("broker container not running");
        }
        broker.copyFileToContainer(org.testcontainers.utility.MountableFile.forHostPath(hostFile), containerPath);
        event("copy: " + hostFile + " -> " + containerPath);
    }

    /** The running broker container's name, or null. */
    public synchronized String containerName() {
        return broker == null ? null : broker.getContainerName();
    }

    @Override
    public Path logFile() {
        return workDir.resolve("broker.log");
    }

    @Override
    public Path stdoutFile() {
        return workDir.resolve("broker.stdout");
    }

    @Override
    public Path workDir() {
        return workDir;
    }

    @Override
    public Path dataDir() {
        return dataDir;
    }

    @Override
    public Duration lastStartDuration() {
        return lastStart;
    }

    /** In a one-off container of the broker's version's image (tools from 4.3.1's for 4.4.0, see KafkaClasspath). */
    @Override
    public ToolResult runTool(String mainClass, List<String> args, Duration timeout) {
        KafkaVersion tools = mainClass.startsWith("org.apache.kafka.tools.") ? KafkaClasspath.toolsVersion(version) : version;
        return runOnce(ContainerImages.kafkaImage(tools), tools, mainClass, args, timeout,
                mainClass.substring(mainClass.lastIndexOf('.') + 1));
    }

    /** Runs a class to completion in a one-off container with the work dir mounted, as kafka-*.sh tools run. */
    private ToolResult runOnce(String image, KafkaVersion toolVersion, String mainClass, List<String> args, Duration timeout, String label) {
        long t0 = System.nanoTime();
        Path toolsDir = createDirs(workDir.resolve("tools"));
        Path out = toolsDir.resolve(String.format("%02d-%s.out", toolRuns.incrementAndGet(), label));
        Path logConfig = toolsDir.resolve(LoggingConfigs.fileName(toolVersion, "tools"));
        DockerClient docker = DockerClientFactory.instance().client();
        String id = null;
        try {
            Files.writeString(logConfig, LoggingConfigs.toStderr(toolVersion, "WARN"));
            List<String> env = new ArrayList<>(List.of("KAFKA_HEAP_OPTS=-Xmx512m",
                    "KAFKA_LOG4J_OPTS=" + String.join(" ", LoggingConfigs.systemProperties(toolVersion, logConfig)),
                    "LOG_DIR=" + toolsDir));
            if (ContainerImages.source() == ContainerImages.Source.LOCAL) {
                env.add("JAVA_HOME=" + javaHome);
            }
            List<String> cmd = new ArrayList<>(List.of(mainClass));
            cmd.addAll(args);
            var create = docker.createContainerCmd(image)
                    .withName(containerName(label.toLowerCase()))
                    .withLabels(Map.of(LABEL, "true"))
                    .withEnv(env)
                    .withCmd(cmd)
                    .withHostConfig(HostConfig.newHostConfig().withNetworkMode("host")
                            .withBinds(new com.github.dockerjava.api.model.Bind(workDir.toString(),
                                    new com.github.dockerjava.api.model.Volume(workDir.toString()))));
            if (ContainerImages.source() == ContainerImages.Source.OFFICIAL) {
                create.withUser("0").withEntrypoint(ContainerImages.RUN_CLASS);
            }
            id = create.exec().getId();
            ContainerReaper.track(id);
            docker.startContainerCmd(id).exec();
            Integer code = docker.waitContainerCmd(id).start().awaitStatusCode(timeout.toMillis(), TimeUnit.MILLISECONDS);
            StringBuilder output = new StringBuilder();
            docker.logContainerCmd(id).withStdOut(true).withStdErr(true).exec(new ResultCallback.Adapter<Frame>() {
                @Override
                public void onNext(Frame frame) {
                    output.append(new String(frame.getPayload(), StandardCharsets.UTF_8));
                }
            }).awaitCompletion(30, TimeUnit.SECONDS);
            Files.writeString(out, output);
            return new ToolResult(code, output.toString(), out, Duration.ofNanos(System.nanoTime() - t0));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + mainClass + " in " + image, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + mainClass, e);
        } catch (RuntimeException e) {
            throw new IllegalStateException(mainClass + " in " + image + " did not finish within " + timeout.toSeconds()
                    + " s or failed to run: " + e, e);
        } finally {
            if (id != null) {
                try {
                    docker.removeContainerCmd(id).withForce(true).exec();
                } catch (RuntimeException e) {
                    // already removed
                }
                ContainerReaper.untrack(id);
            }
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
            if (broker != null) removeQuietly(broker);
            if (zooKeeper != null) removeQuietly(zooKeeper);
            broker = null;
            zooKeeper = null;
        }
    }

    private static String describe(String image, Map<String, String> env, List<String> command) {
        StringBuilder sb = new StringBuilder("# image " + image + ", network host\n");
        env.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
        sb.append(String.join(" ", command)).append('\n');
        return sb.toString();
    }

    private static void append(Path file, byte[] bytes) {
        if (bytes == null) {
            return;
        }
        try {
            Files.write(file, bytes, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            // diagnostics only
        }
    }

    private void event(String what) {
        append(workDir.resolve("harness.log"), (Instant.now() + " " + what + "\n").getBytes(StandardCharsets.UTF_8));
    }

    private static Path createDirs(Path dir) {
        try {
            return Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path realPath(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException e) {
            throw new UncheckedIOException("no JDK at " + p, e);
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

    @Override
    public String toString() {
        return "ContainerKafkaBroker{kafka " + version + ", " + bootstrapServers() + ", " + workDir + "}";
    }
}
