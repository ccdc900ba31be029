package io.stallscope.testcontainers;

import org.testcontainers.containers.GenericContainer;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The Stallscope agent in a Kafka container. {@link #attach} before the container starts: it copies the
 * agent jar in (from this module's own jar), adds {@code -javaagent} to the JVM options variable the
 * image's start script reads ({@code KAFKA_OPTS} by default), and exposes the metrics port. After the
 * start, {@link #snapshot()} reads what the agent measured.
 *
 * <p>Works with any {@link GenericContainer} whose JVM runs {@code kafka.Kafka} through a script that
 * reads {@code KAFKA_OPTS} (apache/kafka, Testcontainers' {@code KafkaContainer}, most images), or reads
 * {@code JAVA_TOOL_OPTIONS} with {@link JvmOptionsVariable#JAVA_TOOL_OPTIONS}.
 */
public final class StallscopeAgent {
    private final GenericContainer<?> container;
    private final AgentOptions options;

    private StallscopeAgent(GenericContainer<?> container, AgentOptions options) {
        this.container = container;
        this.options = options;
    }

    /** {@link #attach(GenericContainer, AgentOptions)} with {@link AgentOptions#defaults()}. */
    public static StallscopeAgent attach(GenericContainer<?> container) {
        return attach(container, AgentOptions.defaults());
    }

    /** Puts the agent into a container that has not started yet. */
    public static StallscopeAgent attach(GenericContainer<?> container, AgentOptions options) {
        if (container == null) {
            throw new IllegalArgumentException("container is null: pass the KafkaContainer (or GenericContainer running"
                    + " kafka.Kafka) before start(), e.g. StallscopeAgent.attach(kafka, options)");
        }
        Objects.requireNonNull(options, "options: AgentOptions.defaults() or a copy of it");
        if (container.getContainerId() != null) {
            throw new IllegalStateException("container " + container.getDockerImageName() + " has started already:"
                    + " attach the agent before start() (before @Container or the extension starts it)");
        }
        String variable = options.jvmOptionsVariable().name();
        String javaagent = "-javaagent:" + AgentJar.CONTAINER_PATH + "="
                + options.agentArgs(hostNetwork(container) ? "127.0.0.1" : "0.0.0.0");
        String existing = container.getEnvMap().get(variable);
        if (existing != null && existing.contains("-javaagent:" + AgentJar.CONTAINER_PATH)) {
            throw new IllegalStateException("the Stallscope agent is attached to this container already (" + variable
                    + "=" + existing + ")");
        }
        container.addEnv(variable, existing == null || existing.isBlank() ? javaagent : existing + " " + javaagent);
        container.withCopyFileToContainer(AgentJar.file(), AgentJar.CONTAINER_PATH);
        if (!hostNetwork(container)) {
            container.addExposedPort(options.metricsPort());
        }
        return new StallscopeAgent(container, options);
    }

    public GenericContainer<?> container() {
        return container;
    }

    public AgentOptions options() {
        return options;
    }

    /** The agent's metrics URL as the test reaches it (the mapped port, or the port itself with host networking). */
    public String metricsUrl() {
        requireRunning();
        int port = hostNetwork(container) ? options.metricsPort() : container.getMappedPort(options.metricsPort());
        String host = hostNetwork(container) ? "127.0.0.1" : container.getHost();
        return "http://" + host + ":" + port + "/metrics";
    }

    /** Scrapes the agent's endpoint now. Fails naming what to fix if the container or the agent is not there. */
    public MetricsSnapshot snapshot() {
        String url = metricsUrl();
        String text;
        try {
            text = get(url);
        } catch (IOException e) {
            throw new IllegalStateException(unreachable(url, e), e);
        }
        return new MetricsSnapshot(PrometheusText.parse(text), slowOpLines(), name(), Instant.now());
    }

    /** The agent's slow-op lines ("slow op=... duration_ms=...") in the container's log so far. */
    public List<String> slowOpLines() {
        List<String> out = new ArrayList<>();
        for (String line : container.getLogs().split("\n")) {
            if (line.contains("slow op=")) {
                out.add(line);
            }
        }
        return out;
    }

    /** The lines of the container's log that the agent wrote or that name it. */
    public List<String> agentLogLines() {
        List<String> out = new ArrayList<>();
        for (String line : container.getLogs().split("\n")) {
            if (line.toLowerCase(java.util.Locale.ROOT).contains("stallscope")) {
                out.add(line);
            }
        }
        return out;
    }

    private String unreachable(String url, IOException e) {
        if (!container.isRunning()) {
            return "container " + name() + " stopped while reading " + url + "; its last log lines:\n" + tail(container.getLogs(), 20);
        }
        List<String> agentLines = agentLogLines();
        if (agentLines.isEmpty()) {
            return "no Stallscope agent answers at " + url + " (" + e + ") and container " + name() + "'s log has no"
                    + " line of it: no JVM in the container loaded the agent. Does the image start kafka.Kafka through a"
                    + " script that reads " + options.jvmOptionsVariable() + "? (else try JvmOptionsVariable."
                    + (options.jvmOptionsVariable() == JvmOptionsVariable.KAFKA_OPTS ? "JAVA_TOOL_OPTIONS" : "KAFKA_OPTS")
                    + "); its last log lines:\n" + tail(container.getLogs(), 20);
        }
        return "the Stallscope agent in container " + name() + " does not answer at " + url + " (" + e + "); its lines"
                + " in the container's log:\n" + String.join("\n", agentLines);
    }

    private void requireRunning() {
        if (container.getContainerId() == null) {
            throw new IllegalStateException("container " + container.getDockerImageName() + " has not been started:"
                    + " start() it (or let @Container or the extension do so) before reading the agent");
        }
        if (!container.isRunning()) {
            throw new IllegalStateException("container " + name() + " is not running (exit code "
                    + container.getCurrentContainerInfo().getState().getExitCodeLong() + "); its last log lines:\n"
                    + tail(container.getLogs(), 20));
        }
    }

    private String name() {
        String n = container.getContainerName();
        return n != null ? n.replaceFirst("^/", "") : container.getDockerImageName();
    }

    private static boolean hostNetwork(GenericContainer<?> c) {
        return "host".equals(c.getNetworkMode());
    }

    private static String tail(String logs, int lines) {
        String[] all = logs.split("\n");
        int from = Math.max(0, all.length - lines);
        StringBuilder sb = new StringBuilder();
        for (int i = from; i < all.length; i++) {
            sb.append("  ").append(all[i]).append('\n');
        }
        return sb.toString();
    }

    private static String get(String url) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create(url).toURL().openConnection();
        c.setConnectTimeout(3000);
        c.setReadTimeout(10000);
        try (InputStream in = c.getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } finally {
            c.disconnect();
        }
    }
}
