package io.stallscope.it.demo;

import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.FreePorts;
import io.stallscope.it.broker.KafkaVersion;
import io.stallscope.it.broker.LocalKafkaBroker;
import io.stallscope.it.slowdisk.PageCache;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The demo's own broker: Kafka from Maven Central jars in a child JVM on 127.0.0.1, the agent as an
 * operator deploys it ({@code -javaagent}), on a slow disk (real or simulated: {@link DemoDiskKind}). One network thread, so that the
 * producer's and the late consumer's connections share it, as clients do on a busy broker.
 */
final class LocalTarget implements DemoTarget {
    private final LocalKafkaBroker broker;
    private final MetricsEndpoint metrics;
    private final DemoDisk disk;
    private final String agentOptions;

    /** @param agentExtra options after prometheus=..., e.g. "mitigate=roll-flush,prefetch" (may be empty) */
    LocalTarget(KafkaVersion version, Path agentJar, String agentExtra, DemoTopics topics, DemoDiskKind diskKind, Path dir) {
        int port = FreePorts.next();
        this.agentOptions = "prometheus=127.0.0.1:" + port + ",slow.threshold=50ms"
            + (agentExtra.isEmpty() ? "" : "," + agentExtra);
        this.disk = diskKind.create(topics, dir);
        BrokerSpec.Builder spec = BrokerSpec.builder(version).name("demo").workDir(dir.resolve("broker"))
            .javaAgent(agentJar, agentOptions)
            .serverProperty("num.network.threads", "1");
        disk.applyTo(spec);
        LocalKafkaBroker made;
        try {
            made = new LocalKafkaBroker(spec.build());
        } catch (RuntimeException e) {
            disk.close();
            throw e;
        }
        this.broker = made;
        this.metrics = new MetricsEndpoint(URI.create("http://127.0.0.1:" + port + "/metrics"));
    }

    void start() {
        broker.start();
    }

    LocalKafkaBroker broker() {
        return broker;
    }

    DemoDisk disk() {
        return disk;
    }

    String agentOptions() {
        return agentOptions;
    }

    /** The agent's start-up line from the broker log, summed up (see {@link AgentStartLine}). */
    List<String> agentLines() {
        try (Stream<String> lines = Files.readAllLines(broker.logFile(), StandardCharsets.ISO_8859_1).stream()) {
            return lines.filter(l -> l.contains("Stallscope ") && l.contains(" active ("))
                .flatMap(l -> AgentStartLine.summary(l.substring(l.indexOf("Stallscope "))).stream())
                .toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    @Override
    public String bootstrap() {
        return broker.bootstrapServers();
    }

    @Override
    public MetricsEndpoint metrics() {
        return metrics;
    }

    /**
     * Drops the backlog's rolled segments from the page cache, as if written long ago. The active segment
     * (the newest) stays: on a real broker its pages are the ones just written, still in memory.
     */
    @Override
    public String coolBacklog(DemoTopics topics) {
        Path dir = broker.dataDir().resolve(topics.backlog + "-0");
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> segments = files.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().toList();
            List<Path> rolled = segments.subList(0, Math.max(0, segments.size() - 1));
            PageCache.evict(rolled);
            long bytes = 0;
            for (Path f : rolled) {
                bytes += Files.size(f);
            }
            return String.format(Locale.ROOT, "evicted the backlog's %d rolled segments (%.0f MiB) from the page cache",
                rolled.size(), bytes / (double) (1 << 20));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir, e);
        }
    }

    @Override
    public void close() {
        try {
            try {
                disk.unthrottle(); // the stop is not part of the story; summary() was read before
            } finally {
                broker.close();
            }
        } finally {
            disk.close();
        }
    }
}
