package io.stallscope.it.container;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.async.ResultCallback;
import io.stallscope.it.broker.AbstractKafkaBroker;
import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.KafkaJdks;
import io.stallscope.it.broker.KafkaVersion;
import io.stallscope.it.broker.LocalKafkaBroker;
import io.stallscope.it.broker.LoggingConfigs;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.BindMode;
import org.testcontainers.containers.Container;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
public final class ContainerKafkaBroker extends AbstractKafkaBroker {

    private static final String LABEL = "io.stallscope.it";
    private static final Pattern HOST_PATH = Pattern.compile("(?<![\\w.])(/[\\w.+@%-]+(?:/[\\w.+@%-]+)*)");

    private final AtomicInteger containerRuns = new AtomicInteger();
    private GenericContainer<?> broker;
    private GenericContainer<?> zooKeeper;

    public ContainerKafkaBroker(BrokerSpec spec) {
        super(refuseHostOnly(spec), javaHomeOf(spec));
    }

    /**
     * A launch wrapper (a real disk's cgroup entry) is a child JVM's way into a cgroup; a container would
     * silently run without it, so refuse it: a container takes the engine's own device limits instead.
     */
    private static BrokerSpec refuseHostOnly(BrokerSpec spec) {
        if (!spec.launchWrapper().isEmpty()) {
            throw new IllegalArgumentException("a container broker takes no launch wrapper (a real disk's cgroup is a"
                    + " child JVM's): give BrokerSpec.deviceLimits, which the container engine applies");
        }
        return spec;
    }

    /** The JDK the broker runs with, at the same path inside the image as on the host. */
    private static Path javaHomeOf(BrokerSpec spec) {
        Path javaHome = realPath(spec.javaHome() != null ? spec.javaHome() : KafkaJdks.defaultJdk());
        if (ContainerImages.source() == ContainerImages.Source.LOCAL && !ContainerImages.jdksInBaseImage().contains(javaHome)) {
            throw new IllegalArgumentException("java home " + javaHome + " is not in " + ContainerImages.BASE_IMAGE
                    + " (it has " + ContainerImages.jdksInBaseImage() + ")");
        }
        return javaHome;
    }

    @Override
    protected String where() {
        return broker != null ? "in container " + broker.getContainerName() : "in " + ContainerImages.kafkaImage(version);
    }

    @Override
    protected void launchBroker(Path serverProps, Path logConfig) throws IOException {
        String image = ContainerImages.kafkaImage(version);
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
    }

    @Override
    protected boolean brokerAlive() {
        return broker != null && broker.isRunning();
    }

    @Override
    protected String brokerExit() {
        return "broker container exited with " + exitCodeOf(broker);
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
        if (!dataDir.startsWith(workDir)) { // e.g. a real disk's mount point, at the same path as on the host
            c.withFileSystemBind(dataDir.toString(), dataDir.toString(), BindMode.READ_WRITE);
        }
        if (spec.deviceLimits() != null && role.equals("broker")) {
            DeviceIoLimits.apply(spec.deviceLimits(), c);
        }
        ContainerReaper.track(c);
        return c;
    }

    /** The work dir, and the data dir when it lives elsewhere (kafka-storage format writes there). */
    private List<com.github.dockerjava.api.model.Bind> toolBinds() {
        List<com.github.dockerjava.api.model.Bind> binds = new ArrayList<>();
        binds.add(new com.github.dockerjava.api.model.Bind(workDir.toString(), new com.github.dockerjava.api.model.Volume(workDir.toString())));
        if (!dataDir.startsWith(workDir)) {
            binds.add(new com.github.dockerjava.api.model.Bind(dataDir.toString(), new com.github.dockerjava.api.model.Volume(dataDir.toString())));
        }
        return binds;
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

    @Override
    protected void launchZooKeeper(Path zkProps, Path zkLogConfig) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("KAFKA_HEAP_OPTS", "-Xmx256m");
        env.put("KAFKA_LOG4J_OPTS", String.join(" ", LoggingConfigs.systemProperties(version, zkLogConfig)));
        env.put("KAFKA_OPTS", "-Dzookeeper.admin.enableServer=false");
        env.put("LOG_DIR", workDir.toString());
        zooKeeper = container(ContainerImages.kafkaImage(version), "zookeeper", env,
                List.of("org.apache.zookeeper.server.quorum.QuorumPeerMain", zkProps.toString()));
        zooKeeper.withLogConsumer(frame -> append(workDir.resolve("zookeeper.stdout"), frame.getBytes()));
        zooKeeper.start();
    }

    @Override
    protected boolean zooKeeperAlive() {
        return zooKeeper != null && zooKeeper.isRunning();
    }

    @Override
    protected void killZooKeeper() {
        removeQuietly(zooKeeper);
        zooKeeper = null;
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

    /** Runs a class to completion in a one-off container with the work dir mounted, as kafka-*.sh tools run. */
    @Override
    protected ToolResult runJava(KafkaVersion toolVersion, String mainClass, List<String> args, Duration timeout, String label) {
        String image = ContainerImages.kafkaImage(toolVersion);
        long t0 = System.nanoTime();
        Path out = toolOutput(label);
        Path toolsDir = out.getParent();
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
                    .withHostConfig(HostConfig.newHostConfig().withNetworkMode("host").withBinds(toolBinds()));
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
    protected void forceStop() {
        if (broker != null) removeQuietly(broker);
        if (zooKeeper != null) removeQuietly(zooKeeper);
        broker = null;
        zooKeeper = null;
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

    private static Path realPath(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException e) {
            throw new UncheckedIOException("no JDK at " + p, e);
        }
    }


}
