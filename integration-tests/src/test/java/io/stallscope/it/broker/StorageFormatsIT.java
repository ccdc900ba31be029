package io.stallscope.it.broker;

import org.apache.kafka.common.record.FileRecords;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A copy of a kept format ({@link StorageFormats}) is what Kafka's StorageTool writes for that broker: the same files,
 * the same records in its checkpoints (their timestamps, and a 4.x snapshot header's last timestamp, are the
 * template's: when it was formatted, earlier in the same test JVM), and the
 * same meta.properties but for its date comment and its directory id, which is its own. On the three layouts
 * of the format's output: 3.4 (bootstrap.checkpoint, no directory id), 3.9 (directory ids), 4.4 (the metadata log's
 * first checkpoint). Each broker of the suite starts from such a copy.
 */
class StorageFormatsIT {
    /** The control record key of a KRaft snapshot's header (ControlRecordType.SNAPSHOT_HEADER, version 0). */
    private static final String SNAPSHOT_HEADER = "00000003";

    @ParameterizedTest
    @ValueSource(strings = {"3.4.1", "3.9.2", "4.4.0"})
    void aCopyIsWhatTheStorageToolWrites(String v) throws Exception {
        KafkaVersion version = KafkaVersion.of(v);
        LocalKafkaBroker a = new LocalKafkaBroker(BrokerSpec.builder(version).name("storage-format-a").build());
        LocalKafkaBroker b = new LocalKafkaBroker(BrokerSpec.builder(version).name("storage-format-b").build());
        String clusterId = "q1Sh-9_ISia_zwGINzRvyQ";
        Map<String, String> propsA = BrokerConfigs.serverProperties(version, 1, a.ports(), a.dataDir(), null, Map.of());
        Map<String, String> propsB = BrokerConfigs.serverProperties(version, 1, b.ports(), b.dataDir(), null,
            Map.of("background.threads", "1", "log.segment.bytes", "1048576"));
        Path serverPropsA = a.workDir().resolve("server.properties");
        Files.writeString(serverPropsA, BrokerConfigs.render(propsA));

        KafkaBroker.ToolResult direct = a.runTool("kafka.tools.StorageTool",
            List.of("format", "-t", clusterId, "-c", serverPropsA.toString()), Duration.ofSeconds(90));
        assertThat(direct.succeeded()).as(direct.output()).isTrue();
        // b's ports, directories and tuning differ from a's: still one template; a setting the format reads does not
        String keyA = StorageFormats.key(version, propsA, StorageFormats.formattedDirs(propsA), a.workDir());
        assertThat(StorageFormats.key(version, propsB, StorageFormats.formattedDirs(propsB), b.workDir())).isEqualTo(keyA);
        Map<String, String> propsC = BrokerConfigs.serverProperties(version, 1, b.ports(), b.dataDir(), null,
            Map.of("inter.broker.protocol.version", "3.4"));
        assertThat(StorageFormats.key(version, propsC, StorageFormats.formattedDirs(propsC), b.workDir())).isNotEqualTo(keyA);
        StorageFormats.format(version, propsB, b.workDir(), clusterId,
            args -> b.runTool("kafka.tools.StorageTool", args, Duration.ofSeconds(90)));

        Map<String, byte[]> written = files(a.dataDir());
        Map<String, byte[]> copied = files(b.dataDir());
        assertThat(copied.keySet()).isEqualTo(written.keySet()).contains("meta.properties");
        written.forEach((name, bytes) -> {
            if (name.endsWith(".checkpoint")) {
                assertThat(records(b.dataDir().resolve(name))).as(name).isEqualTo(records(a.dataDir().resolve(name)));
            } else if (!name.equals("meta.properties")) {
                assertThat(copied.get(name)).as(name).isEqualTo(bytes);
            }
        });
        Map<String, String> metaA = properties(written.get("meta.properties"));
        Map<String, String> metaB = properties(copied.get("meta.properties"));
        assertThat(metaB.get("cluster.id")).isEqualTo(clusterId);
        if (version.isAtLeast(3, 7, 0)) {
            assertThat(metaB.get("directory.id")).isNotNull().isNotEqualTo(metaA.get("directory.id"));
            metaA.remove("directory.id");
            metaB.remove("directory.id");
        }
        assertThat(metaB).isEqualTo(metaA);
    }

    private static Map<String, byte[]> files(Path dir) throws IOException {
        try (Stream<Path> walk = Files.walk(dir)) {
            return walk.filter(Files::isRegularFile).collect(Collectors.toMap(p -> dir.relativize(p).toString(), p -> {
                try {
                    return Files.readAllBytes(p);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }, (x, y) -> x, TreeMap::new));
        }
    }

    /** A checkpoint's batches and records, but not their timestamps (and so not their CRCs). */
    private static List<String> records(Path checkpoint) {
        List<String> out = new java.util.ArrayList<>();
        try (FileRecords log = FileRecords.open(checkpoint.toFile(), false)) {
            for (RecordBatch batch : log.batches()) {
                out.add("batch " + batch.baseOffset() + "-" + batch.lastOffset() + " magic " + batch.magic() + " control "
                    + batch.isControlBatch() + " epoch " + batch.partitionLeaderEpoch());
                for (Record r : batch) {
                    String key = HexFormat.of().formatHex(bytes(r.key()));
                    String value = HexFormat.of().formatHex(bytes(r.value()));
                    if (batch.isControlBatch() && key.equals(SNAPSHOT_HEADER)) {
                        // version (2 bytes), lastContainedLogTimestamp (8): when the template was formatted
                        value = value.substring(0, 4) + "<time>" + value.substring(20);
                    }
                    out.add(r.offset() + " " + key + " " + value);
                }
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        assertThat(out).as("records in " + checkpoint).isNotEmpty();
        return out;
    }

    private static byte[] bytes(java.nio.ByteBuffer b) {
        if (b == null) return new byte[0];
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    private static Map<String, String> properties(byte[] bytes) {
        Map<String, String> out = new TreeMap<>();
        for (String line : new String(bytes, StandardCharsets.ISO_8859_1).split("\n")) {
            int eq = line.indexOf('=');
            if (!line.startsWith("#") && eq > 0) out.put(line.substring(0, eq), line.substring(eq + 1));
        }
        return out;
    }
}
