package io.stallscope.it.broker;

import io.stallscope.it.realdisk.IoLimits;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What to run, independent of where it runs (child JVM here, a container later): Kafka version,
 * JDK, JVM arguments (e.g. {@code -javaagent:...}), environment (e.g. {@code LD_PRELOAD}), extra
 * server properties, node id, heap, listeners, start timeout.
 */
public final class BrokerSpec {

    private final KafkaVersion version;
    private final Path javaHome;
    private final List<String> jvmArgs;
    private final Map<String, String> env;
    private final Map<String, String> serverProperties;
    private final int nodeId;
    private final String name;
    private final Path workDir;
    private final String heap;
    private final boolean sslListener;
    private final Duration startTimeout;
    private final KRaftCluster joins;
    private final String zooKeeperConnect;
    private final Path dataDir;
    private final List<String> launchWrapper;
    private final DeviceLimits deviceLimits;

    /**
     * Block I/O limits on one device that the container engine applies to the broker's container (its own
     * cgroup I/O controller: {@code --device-read-bps} and the like). A child JVM gets them from a real disk's
     * launch wrapper instead.
     */
    public record DeviceLimits(String device, IoLimits limits) {
        public DeviceLimits {
            Objects.requireNonNull(device, "device");
            Objects.requireNonNull(limits, "limits");
        }
    }

    /** A KRaft cluster to join as a broker-only node: its controller quorum and cluster id. */
    public record KRaftCluster(String quorumVoters, String clusterId) {
        public KRaftCluster {
            Objects.requireNonNull(quorumVoters, "quorumVoters");
            Objects.requireNonNull(clusterId, "clusterId");
        }
    }

    private BrokerSpec(Builder b) {
        this.version = Objects.requireNonNull(b.version, "version");
        this.javaHome = b.javaHome;
        this.jvmArgs = List.copyOf(b.jvmArgs);
        this.env = Collections.unmodifiableMap(new LinkedHashMap<>(b.env));
        this.serverProperties = Collections.unmodifiableMap(new LinkedHashMap<>(b.serverProperties));
        this.nodeId = b.nodeId;
        this.name = b.name;
        this.workDir = b.workDir;
        this.heap = b.heap;
        this.sslListener = b.sslListener;
        this.startTimeout = b.startTimeout;
        this.joins = b.joins;
        this.zooKeeperConnect = b.zooKeeperConnect;
        this.dataDir = b.dataDir;
        this.launchWrapper = List.copyOf(b.launchWrapper);
        this.deviceLimits = b.deviceLimits;
        if (joins != null && !version.usesKRaft()) {
            throw new IllegalArgumentException("only a KRaft broker (3.3+) can join a KRaft cluster: " + version);
        }
        if (zooKeeperConnect != null && !version.usesZooKeeper()) {
            throw new IllegalArgumentException("only a ZooKeeper broker (before 3.3) can join a ZooKeeper: " + version);
        }
    }

    public static Builder builder(KafkaVersion version) {
        return new Builder(version);
    }

    public static Builder builder(String version) {
        return new Builder(KafkaVersion.of(version));
    }

    public KafkaVersion version() {
        return version;
    }

    /** The JDK to run the broker with; null means {@link KafkaJdks#defaultJdk()}. */
    public Path javaHome() {
        return javaHome;
    }

    /** JVM arguments after the harness defaults (so they may override, e.g. a later -Xmx wins). */
    public List<String> jvmArgs() {
        return jvmArgs;
    }

    public Map<String, String> env() {
        return env;
    }

    public Map<String, String> serverProperties() {
        return serverProperties;
    }

    public int nodeId() {
        return nodeId;
    }

    public String name() {
        return name;
    }

    /** An explicit work directory, or null for a fresh one under target/brokers. */
    public Path workDir() {
        return workDir;
    }

    public String heap() {
        return heap;
    }

    public boolean sslListener() {
        return sslListener;
    }

    public Duration startTimeout() {
        return startTimeout;
    }

    /** The cluster this node joins as a broker only, or null: a single combined broker and controller. */
    public KRaftCluster joins() {
        return joins;
    }

    /** Another broker's ZooKeeper ("127.0.0.1:port") this one registers with instead of starting its own, or null. */
    public String zooKeeperConnect() {
        return zooKeeperConnect;
    }

    /** The log directory (log.dirs) when it lives elsewhere than the work directory, e.g. on a real disk; null: {@code <work dir>/data}. */
    public Path dataDir() {
        return dataDir;
    }

    /**
     * A command the broker's JVM is started through, which must end by exec'ing its arguments (so the pid
     * stays the JVM's), e.g. a real disk's cgroup entry; empty for none. Child JVMs only.
     */
    public List<String> launchWrapper() {
        return launchWrapper;
    }

    /** The container engine's block I/O limits for the broker, or null (see {@link DeviceLimits}). Containers only. */
    public DeviceLimits deviceLimits() {
        return deviceLimits;
    }

    public Builder toBuilder() {
        Builder b = new Builder(version);
        b.javaHome = javaHome;
        b.jvmArgs.addAll(jvmArgs);
        b.env.putAll(env);
        b.serverProperties.putAll(serverProperties);
        b.nodeId = nodeId;
        b.name = name;
        b.workDir = workDir;
        b.heap = heap;
        b.sslListener = sslListener;
        b.startTimeout = startTimeout;
        b.joins = joins;
        b.zooKeeperConnect = zooKeeperConnect;
        b.dataDir = dataDir;
        b.launchWrapper.addAll(launchWrapper);
        b.deviceLimits = deviceLimits;
        return b;
    }

    @Override
    public String toString() {
        return "BrokerSpec{" + name + " kafka " + version + ", java " + javaHome + ", jvmArgs " + jvmArgs
                + ", env " + env.keySet() + ", props " + serverProperties + ", node " + nodeId + ", ssl " + sslListener
                + (dataDir == null ? "" : ", data " + dataDir) + (launchWrapper.isEmpty() ? "" : ", launched through " + launchWrapper)
                + (deviceLimits == null ? "" : ", " + deviceLimits.device() + " " + deviceLimits.limits().describe()) + "}";
    }

    public static final class Builder {
        private final KafkaVersion version;
        private Path javaHome;
        private final List<String> jvmArgs = new ArrayList<>();
        private final Map<String, String> env = new LinkedHashMap<>();
        private final Map<String, String> serverProperties = new LinkedHashMap<>();
        private int nodeId = 1;
        private String name = "broker";
        private Path workDir;
        private String heap = "512m";
        private boolean sslListener;
        private Duration startTimeout = defaultStartTimeout();
        private KRaftCluster joins;
        private String zooKeeperConnect;
        private Path dataDir;
        private final List<String> launchWrapper = new ArrayList<>();
        private DeviceLimits deviceLimits;

        private Builder(KafkaVersion version) {
            this.version = Objects.requireNonNull(version, "version");
        }

        public Builder javaHome(Path javaHome) {
            this.javaHome = javaHome;
            return this;
        }

        public Builder jvmArg(String arg) {
            this.jvmArgs.add(Objects.requireNonNull(arg));
            return this;
        }

        public Builder jvmArgs(List<String> args) {
            args.forEach(this::jvmArg);
            return this;
        }

        /** Drops every {@code -javaagent:} argument: the same broker without any agent (a control). */
        public Builder withoutJavaAgents() {
            jvmArgs.removeIf(a -> a.startsWith("-javaagent:"));
            return this;
        }

        /** {@code -javaagent:<jar>[=<options>]}. */
        public Builder javaAgent(Path jar, String options) {
            return jvmArg("-javaagent:" + jar.toAbsolutePath() + (options == null || options.isEmpty() ? "" : "=" + options));
        }

        /**
         * JVM arguments from a {@code KAFKA_OPTS}-style string (whitespace-separated, as Kafka's scripts
         * split it). Unlike Kafka's scripts, they reach only the broker, not the tools the harness runs.
         */
        public Builder kafkaOpts(String opts) {
            return jvmArgs(splitOpts(opts));
        }

        public Builder env(String key, String value) {
            this.env.put(Objects.requireNonNull(key), Objects.requireNonNull(value));
            return this;
        }

        public Builder serverProperty(String key, String value) {
            this.serverProperties.put(Objects.requireNonNull(key), Objects.requireNonNull(value));
            return this;
        }

        public Builder serverProperties(Map<String, String> props) {
            props.forEach(this::serverProperty);
            return this;
        }

        public Builder nodeId(int nodeId) {
            if (nodeId < 0) throw new IllegalArgumentException("node id must be >= 0: " + nodeId);
            this.nodeId = nodeId;
            return this;
        }

        /** Name used for the work directory: {@code target/brokers/<name>-<version>-<n>}. */
        public Builder name(String name) {
            if (!name.matches("[A-Za-z0-9._-]+")) throw new IllegalArgumentException("bad broker name: " + name);
            this.name = name;
            return this;
        }

        public Builder workDir(Path workDir) {
            this.workDir = workDir;
            return this;
        }

        /** Heap size for -Xmx and -Xms, e.g. {@code 512m}. */
        public Builder heap(String heap) {
            if (!heap.matches("\\d+[kKmMgG]?")) throw new IllegalArgumentException("bad heap size: " + heap);
            this.heap = heap;
            return this;
        }

        /** Adds an SSL listener on 127.0.0.1 with a self-signed certificate made by keytool. */
        public Builder withSslListener() {
            this.sslListener = true;
            return this;
        }

        public Builder startTimeout(Duration timeout) {
            this.startTimeout = Objects.requireNonNull(timeout);
            return this;
        }

        /**
         * Joins the cluster of a running KRaft broker as a broker-only node (its own node id must differ):
         * e.g. {@code joinKRaftCluster(first.quorumVoters(), first.clusterId())} for a 2-broker cluster.
         */
        public Builder joinKRaftCluster(String quorumVoters, String clusterId) {
            this.joins = new KRaftCluster(quorumVoters, clusterId);
            return this;
        }

        /**
         * Registers with another broker's ZooKeeper (2.8) instead of starting one, so several brokers form one
         * cluster: e.g. {@code joinZooKeeper("127.0.0.1:" + first.ports().zooKeeperPort())}; node ids must differ.
         */
        public Builder joinZooKeeper(String connect) {
            this.zooKeeperConnect = Objects.requireNonNull(connect, "connect");
            return this;
        }

        /** Puts log.dirs at this directory (created if missing) instead of {@code <work dir>/data}. */
        public Builder dataDir(Path dataDir) {
            this.dataDir = dataDir == null ? null : dataDir.toAbsolutePath();
            return this;
        }

        /** The container engine's block I/O limits on {@code device} (see {@link DeviceLimits}); null limits: none. */
        public Builder deviceLimits(String device, IoLimits limits) {
            this.deviceLimits = limits == null ? null : new DeviceLimits(device, limits);
            return this;
        }

        /** Starts the broker's JVM through this command (see {@link BrokerSpec#launchWrapper()}). */
        public Builder launchWrapper(List<String> wrapper) {
            this.launchWrapper.clear();
            this.launchWrapper.addAll(wrapper);
            return this;
        }

        public BrokerSpec build() {
            return new BrokerSpec(this);
        }
    }

    /** System property overriding the default start timeout (seconds), e.g. for a loaded CI machine. */
    public static final String START_TIMEOUT_PROPERTY = "stallscope.broker.startTimeoutSeconds";

    /** 60 s, or {@value #START_TIMEOUT_PROPERTY} if set. */
    public static Duration defaultStartTimeout() {
        String v = System.getProperty(START_TIMEOUT_PROPERTY, "").trim();
        return v.isEmpty() ? Duration.ofSeconds(60) : Duration.ofSeconds(Long.parseLong(v));
    }

    /** Splits a KAFKA_OPTS-like string on whitespace; single or double quotes group words. */
    public static List<String> splitOpts(String opts) {
        List<String> out = new ArrayList<>();
        if (opts == null) return out;
        StringBuilder cur = new StringBuilder();
        char quote = 0;
        boolean inToken = false;
        for (char c : opts.toCharArray()) {
            if (quote != 0) {
                if (c == quote) quote = 0; else cur.append(c);
            } else if (c == '"' || c == '\'') {
                quote = c;
                inToken = true;
            } else if (Character.isWhitespace(c)) {
                if (inToken) {
                    out.add(cur.toString());
                    cur.setLength(0);
                    inToken = false;
                }
            } else {
                cur.append(c);
                inToken = true;
            }
        }
        if (quote != 0) throw new IllegalArgumentException("unbalanced quote in: " + opts);
        if (inToken) out.add(cur.toString());
        return out;
    }
}
