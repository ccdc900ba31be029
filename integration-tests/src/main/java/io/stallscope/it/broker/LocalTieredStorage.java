package io.stallscope.it.broker;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Kafka's own {@code LocalTieredStorage} (KIP-405's test plugin: a remote tier that is a directory) as a broker's
 * remote storage, Kafka 3.6 and later: the plugin comes from Kafka's kafka-storage test jar of the broker's version
 * ("test-fixtures" from 4.4), loaded through the plugin class path Kafka gives a remote storage manager, and writes its segments under a
 * directory of the caller's (a throttled loop disk makes remote reads slow for real). Remote copies and local
 * deletions run every half second, so a test sees segments move within seconds.
 */
public final class LocalTieredStorage {
    public static final String PLUGIN = "org.apache.kafka.server.log.remote.storage.LocalTieredStorage";

    private LocalTieredStorage() {
    }

    /** The broker's server properties for a remote tier in {@code remoteDir}. */
    public static Map<String, String> serverProperties(KafkaVersion version, Path remoteDir) {
        if (version.compareTo(KafkaVersion.of("3.6.0")) < 0) {
            throw new IllegalArgumentException("tiered storage needs Kafka 3.6+, not " + version);
        }
        Map<String, String> p = new LinkedHashMap<>();
        p.put("remote.log.storage.system.enable", "true");
        p.put("remote.log.storage.manager.class.name", PLUGIN);
        p.put("remote.log.storage.manager.class.path", KafkaClasspath.jar(pluginJar(version)).toString());
        p.put("remote.log.storage.manager.impl.prefix", "rsm.config.");
        p.put("rsm.config.dir", remoteDir.toAbsolutePath().toString());
        p.put("remote.log.metadata.manager.impl.prefix", "rlmm.config.");
        p.put("remote.log.metadata.manager.listener.name", "PLAINTEXT");
        // one broker: the metadata topic's defaults (3 replicas, 50 partitions) would not be created, or slowly
        p.put("rlmm.config.remote.log.metadata.topic.replication.factor", "1");
        p.put("rlmm.config.remote.log.metadata.topic.num.partitions", "1");
        p.put("remote.log.manager.task.interval.ms", "500");
        p.put("log.retention.check.interval.ms", "500");
        return p;
    }

    /** The jar with the plugin: kafka-storage's test jar, published as "test-fixtures" from 4.4. */
    static String pluginJar(KafkaVersion version) {
        String classifier = version.compareTo(KafkaVersion.of("4.4.0")) >= 0 ? "test-fixtures" : "test";
        return "org.apache.kafka:kafka-storage:jar:" + classifier + ":" + version;
    }

    /** A topic's configs: tiered, 1 MiB segments, each deleted locally a second after it is copied. */
    public static Map<String, String> topicConfigs() {
        return Map.of("remote.storage.enable", "true", "segment.bytes", Integer.toString(1 << 20),
            "local.retention.ms", "1000", "file.delete.delay.ms", "1000");
    }

    /** Whether a partition's first segment (offset 0) is gone from its local directory: a read from 0 is remote. */
    public static boolean firstSegmentDeletedLocally(Path partitionDir) throws IOException {
        try (Stream<Path> files = Files.list(partitionDir)) {
            return files.noneMatch(f -> f.getFileName().toString().equals("00000000000000000000.log"));
        }
    }
}
