package io.stallscope.testcontainers;

import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The agent's options, typed: each setter checks its value at once, so a bad option fails in the test's
 * own code with the option's name instead of as a broker that started without the agent. Immutable;
 * every {@code with} method returns a copy. {@link #agentArgs()} is the {@code -javaagent:...=ARGS} text.
 * The agent runs with {@code strict=true}, so anything it still refuses stops the broker's JVM.
 */
public final class AgentOptions {
    /** The port the agent serves Prometheus text on, inside the container, unless changed. */
    public static final int DEFAULT_METRICS_PORT = 9405;

    private final Set<Op> ops;
    private final boolean topicLabels;
    private final Set<Mitigation> mitigations;
    private final boolean profile;
    private final Duration slowThreshold;
    private final Duration profileTrigger;
    private final int metricsPort;
    private final JvmOptionsVariable variable;

    private AgentOptions(Set<Op> ops, boolean topicLabels, Set<Mitigation> mitigations, boolean profile,
                         Duration slowThreshold, Duration profileTrigger, int metricsPort, JvmOptionsVariable variable) {
        this.ops = ops;
        this.topicLabels = topicLabels;
        this.mitigations = mitigations;
        this.profile = profile;
        this.slowThreshold = slowThreshold;
        this.profileTrigger = profileTrigger;
        this.metricsPort = metricsPort;
        this.variable = variable;
    }

    /** All ops, no topic labels, no mitigation, no profiling, metrics on port 9405 (off the JMX exporter's 9404), in KAFKA_OPTS. */
    public static AgentOptions defaults() {
        return new AgentOptions(Collections.emptySet(), false, Collections.emptySet(), false, null, null,
                DEFAULT_METRICS_PORT, JvmOptionsVariable.KAFKA_OPTS);
    }

    /** Instrument only these ops (the agent's {@code ops}); none given is an error, all is the default. */
    public AgentOptions ops(Op... ops) {
        if (ops.length == 0) {
            throw new IllegalArgumentException("ops: name at least one Op (the default instruments all of them)");
        }
        return new AgentOptions(Collections.unmodifiableSet(EnumSet.copyOf(Arrays.asList(ops))), topicLabels,
                mitigations, profile, slowThreshold, profileTrigger, metricsPort, variable);
    }

    /** Add topic and partition labels (needed to query by topic-partition). */
    public AgentOptions topicLabels(boolean on) {
        return new AgentOptions(ops, on, mitigations, profile, slowThreshold, profileTrigger, metricsPort, variable);
    }

    /** Apply these mitigations; none given means none. */
    public AgentOptions mitigate(Mitigation... mitigations) {
        Set<Mitigation> m = mitigations.length == 0 ? Collections.emptySet()
                : Collections.unmodifiableSet(EnumSet.copyOf(Arrays.asList(mitigations)));
        return new AgentOptions(ops, topicLabels, m, profile, slowThreshold, profileTrigger, metricsPort, variable);
    }

    /** Keep a capture (JFR file) of the seconds around each op slower than the profile trigger. */
    public AgentOptions profile(boolean on) {
        return new AgentOptions(ops, topicLabels, mitigations, on, slowThreshold, profileTrigger, metricsPort, variable);
    }

    /** Ops at least this long get a slow-op log line (the lines failure messages show); default 100 ms. */
    public AgentOptions slowThreshold(Duration threshold) {
        return new AgentOptions(ops, topicLabels, mitigations, profile, positive("slowThreshold", threshold),
                profileTrigger, metricsPort, variable);
    }

    /** With {@link #profile}: an op at least this long triggers a capture; default the slow threshold. */
    public AgentOptions profileTrigger(Duration trigger) {
        Duration t = positive("profileTrigger", trigger);
        if (t.compareTo(Duration.ofMillis(1)) < 0 || t.compareTo(Duration.ofHours(1)) > 0) {
            throw new IllegalArgumentException("profileTrigger must be 1ms to 1h, not " + trigger);
        }
        return new AgentOptions(ops, topicLabels, mitigations, profile, slowThreshold, t, metricsPort, variable);
    }

    /** The port inside the container the agent serves metrics on (exposed by {@link StallscopeAgent#attach}). */
    public AgentOptions metricsPort(int port) {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("metricsPort must be 1 to 65535, not " + port);
        }
        return new AgentOptions(ops, topicLabels, mitigations, profile, slowThreshold, profileTrigger, port, variable);
    }

    /** Which environment variable carries {@code -javaagent}: KAFKA_OPTS (default) or JAVA_TOOL_OPTIONS. */
    public AgentOptions jvmOptionsVariable(JvmOptionsVariable variable) {
        return new AgentOptions(ops, topicLabels, mitigations, profile, slowThreshold, profileTrigger, metricsPort,
                Objects.requireNonNull(variable, "jvmOptionsVariable"));
    }

    public int metricsPort() {
        return metricsPort;
    }

    public boolean profile() {
        return profile;
    }

    public boolean topicLabels() {
        return topicLabels;
    }

    public JvmOptionsVariable jvmOptionsVariable() {
        return variable;
    }

    /**
     * The agent's argument: comma-separated key=value pairs, list values continuing after a comma (the
     * agent's own syntax). Metrics bind all interfaces inside the container so the engine can publish them.
     */
    public String agentArgs() {
        return agentArgs("0.0.0.0");
    }

    /** With host networking the endpoint binds 127.0.0.1 only: nothing else on the host should reach it. */
    String agentArgs(String bindAddress) {
        Map<String, String> args = new LinkedHashMap<>();
        args.put("prometheus", bindAddress + ":" + metricsPort);
        args.put("strict", "true");
        if (!ops.isEmpty()) {
            args.put("ops", ops.stream().map(Op::label).collect(Collectors.joining(",")));
        }
        if (topicLabels) {
            args.put("topic.labels", "true");
        }
        if (!mitigations.isEmpty()) {
            args.put("mitigate", mitigations.stream().map(Mitigation::label).collect(Collectors.joining(",")));
        }
        if (profile) {
            args.put("profile", "on");
            // a fixed place AgentCaptures copies from, whatever the image's log directory
            args.put("profile.dir", AgentCaptures.DIR);
        }
        if (slowThreshold != null) {
            args.put("slow.threshold", micros(slowThreshold));
        }
        if (profileTrigger != null) {
            args.put("profile.trigger", micros(profileTrigger));
        }
        return args.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(","));
    }

    @Override
    public String toString() {
        return agentArgs();
    }

    private static Duration positive(String name, Duration d) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, not " + d);
        }
        if (d.toNanos() % 1000 != 0) {
            throw new IllegalArgumentException(name + " must be whole microseconds, not " + d);
        }
        return d;
    }

    private static String micros(Duration d) {
        return (d.toNanos() / 1000) + "us";
    }
}
