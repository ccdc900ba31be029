package io.stallscope.it.broker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A real Kafka broker of any supported version in a child JVM, from the Maven Central jars
 * ({@link KafkaClasspath}). 2.8 runs with a ZooKeeper child JVM from the same classpath; 3.3+ in
 * KRaft combined mode (storage formatted first). Everything listens on 127.0.0.1 only.
 *
 * <p>Work directory {@code target/brokers/<name>-<version>-<n>} (kept after the run for diagnosis):
 * {@code server.properties}, {@code broker.log} (log4j, INFO), {@code broker.stdout}, {@code data/}
 * (log.dirs), and for 2.8 {@code zookeeper/}, {@code zookeeper.log}.
 */
public final class LocalKafkaBroker extends AbstractKafkaBroker {

    private Process broker;
    private Process zooKeeper;

    public LocalKafkaBroker(BrokerSpec spec) {
        super(spec, javaHomeOf(spec));
    }

    private static Path javaHomeOf(BrokerSpec spec) {
        if (spec.deviceLimits() != null) {
            // it would silently run unthrottled: a child JVM is throttled by a real disk's cgroup (launch wrapper)
            throw new IllegalArgumentException("a child JVM takes no container engine's device limits: use RealDisk.limit and its launch wrapper");
        }
        Path javaHome = spec.javaHome() != null ? spec.javaHome() : KafkaJdks.defaultJdk();
        if (!Files.isExecutable(javaHome.resolve("bin/java"))) {
            throw new IllegalArgumentException("no bin/java under java home " + javaHome);
        }
        return javaHome;
    }

    /** Shorthand for {@code new LocalKafkaBroker(BrokerSpec.builder(version).build())}. */
    public static LocalKafkaBroker of(KafkaVersion version) {
        return new LocalKafkaBroker(BrokerSpec.builder(version).build());
    }

    @Override
    protected String where() {
        return "in a child JVM";
    }

    @Override
    protected void launchBroker(Path serverProps, Path logConfig) throws IOException {
        List<String> cmd = new ArrayList<>(spec.launchWrapper());
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
        cmd.add(KafkaClasspath.asString(version));
        cmd.add("kafka.Kafka");
        cmd.add(serverProps.toString());
        Files.writeString(workDir.resolve("broker.cmd"), String.join("\n", cmd) + "\n");
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(workDir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(stdoutFile().toFile()));
        pb.environment().putAll(spec.env());
        broker = pb.start();
        ChildProcesses.register(broker);
        event("start: broker JVM launched, pid " + broker.pid());
    }

    @Override
    protected boolean formatsOnThisHost() {
        return true;
    }

    @Override
    protected boolean brokerAlive() {
        return broker != null && broker.isAlive();
    }

    @Override
    protected String brokerExit() {
        return "broker JVM exited with code " + broker.exitValue();
    }

    @Override
    protected void launchZooKeeper(Path zkProps, Path zkLogConfig) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(javaHome.resolve("bin/java").toString(), "-Xmx256m",
                "-Djava.awt.headless=true", "-Dzookeeper.admin.enableServer=false"));
        cmd.addAll(List.of(LoggingConfigs.systemProperties(version, zkLogConfig)));
        cmd.addAll(List.of("-cp", KafkaClasspath.asString(version), "org.apache.zookeeper.server.quorum.QuorumPeerMain",
                zkProps.toString()));
        zooKeeper = new ProcessBuilder(cmd).directory(workDir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(workDir.resolve("zookeeper.stdout").toFile()))
                .start();
        ChildProcesses.register(zooKeeper);
    }

    @Override
    protected boolean zooKeeperAlive() {
        return zooKeeper != null && zooKeeper.isAlive();
    }

    @Override
    protected void killZooKeeper() {
        destroy(zooKeeper, Duration.ZERO);
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
    protected void forceStop() {
        if (broker != null) broker.destroyForcibly();
        if (zooKeeper != null) zooKeeper.destroyForcibly();
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
        return brokerAlive();
    }

    /** Exit code of the last broker JVM, or empty while it runs or before it ran. */
    public synchronized java.util.OptionalInt exitCode() {
        return broker == null || broker.isAlive() ? java.util.OptionalInt.empty() : java.util.OptionalInt.of(broker.exitValue());
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

    /**
     * Tools that run for a moment before every fresh broker (the KRaft storage format, about 100 times a CI run):
     * their JVM starts with {@link #QUICK_START}. Not for tools that measure (ProducerPerformance).
     */
    private static final Set<String> QUICK_TOOLS = Set.of("kafka.tools.StorageTool");
    /**
     * The client compiler only, the serial collector and no verification of the Maven Central jars' classes
     * (they are loaded once and run for a second): the format went from 5.2-5.7 s to 1.4 s at load average 15.
     */
    private static final List<String> QUICK_START = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
            "-XX:+UnlockDiagnosticVMOptions", "-XX:-BytecodeVerificationRemote");

    @Override
    protected ToolResult runJava(KafkaVersion kafka, String mainClass, List<String> args, Duration timeout, String label) {
        long t0 = System.nanoTime();
        Path out = toolOutput(label);
        Path logConfig = out.resolveSibling(LoggingConfigs.fileName(kafka, "tools"));
        try {
            Files.writeString(logConfig, LoggingConfigs.toStderr(kafka, "WARN"));
            List<String> cmd = new ArrayList<>(List.of(javaHome.resolve("bin/java").toString(), "-Xmx512m",
                    "-Djava.awt.headless=true"));
            cmd.addAll(List.of(LoggingConfigs.systemProperties(kafka, logConfig)));
            if (QUICK_TOOLS.contains(mainClass)) {
                cmd.addAll(QUICK_START);
            }
            cmd.addAll(List.of("-cp", KafkaClasspath.asString(kafka), mainClass));
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
}
