package io.stallscope.it.broker;

import org.apache.kafka.common.Uuid;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * KRaft storage formatted by Kafka's own StorageTool once per version and configuration, then copied: the format
 * is a JVM of its own (1-5 s under the suite's load) before every fresh broker, about 100 times a CI run, and what
 * it writes depends on the version and the configuration only, besides two ids. A copy gets this broker's cluster id
 * and a fresh directory id in each {@code meta.properties} (3.7+); nothing else the format writes names the broker
 * (the bootstrap checkpoint holds feature levels). Two configurations share a template when the settings the format
 * reads differ only in ports and in where their directories are.
 */
final class StorageFormats {
    private static final String TEMPLATE_CLUSTER_ID = "U3RhbGxzY29wZUZvcm1hdA"; // "StallscopeFormat", 16 bytes
    private static final Pattern PORT = Pattern.compile("(127\\.0\\.0\\.1|localhost):\\d+");
    private static final Map<String, Path> MADE = new ConcurrentHashMap<>();
    private static final Set<String> READ_BY_FORMAT = Set.of("process.roles", "node.id", "controller.listener.names",
        "controller.quorum.voters", "controller.quorum.bootstrap.servers", "inter.broker.protocol.version", "log.dirs",
        "log.dir", "metadata.log.dir", "listeners", "advertised.listeners");

    private StorageFormats() {
    }

    /**
     * Formats {@code props}'s directories with {@code clusterId}: from the template of this configuration, made
     * first with {@code format} (given a server.properties, it runs the StorageTool) when there is none yet.
     * Returns the template copied, for the harness log.
     */
    static synchronized Path format(KafkaVersion version, Map<String, String> props, Path workDir, String clusterId,
                                    Function<List<String>, KafkaBroker.ToolResult> format) throws IOException {
        List<Path> dirs = formattedDirs(props);
        String key = key(version, props, dirs, workDir);
        Path template = MADE.get(key);
        if (template == null) {
            // this JVM's own: a format's checkpoints carry its time, which a run days later should not inherit
            template = HarnessDirs.target().resolve("storage-formats")
                .resolve(ProcessHandle.current().pid() + "-" + version + "-" + hash(key));
            make(template, props, dirs, format);
            Files.writeString(template.resolve("key.txt"), key); // what two brokers shared, for diagnosis
            MADE.put(key, template);
        }
        for (int i = 0; i < dirs.size(); i++) {
            copy(template.resolve("dir-" + i), dirs.get(i), clusterId);
        }
        return template;
    }

    /** The directories the format writes to: every log dir and the metadata log dir, each once. */
    static List<Path> formattedDirs(Map<String, String> props) {
        Set<Path> dirs = new LinkedHashSet<>();
        String logDirs = props.getOrDefault("log.dirs", props.get("log.dir"));
        if (logDirs != null) {
            for (String d : logDirs.split(",")) {
                if (!d.isBlank()) dirs.add(Path.of(d.strip()).toAbsolutePath().normalize());
            }
        }
        String metadata = props.get("metadata.log.dir");
        if (metadata != null && !metadata.isBlank()) {
            dirs.add(Path.of(metadata.strip()).toAbsolutePath().normalize());
        }
        return new ArrayList<>(dirs);
    }

    /**
     * What the format's output depends on: the version and the settings StorageTool.runFormatCommand reads (3.4 to
     * 4.4), with directories, work dir and ports taken out. Tuning (threads, intervals, segment sizes) is not read.
     */
    static String key(KafkaVersion version, Map<String, String> props, List<Path> dirs, Path workDir) {
        StringBuilder key = new StringBuilder("kafka " + version + "\n");
        new TreeMap<>(props).forEach((k, v) -> {
            if (READ_BY_FORMAT.contains(k) || k.startsWith("unstable.")) {
                key.append(k).append('=').append(normalized(v, dirs, workDir)).append('\n');
            }
        });
        return key.toString();
    }

    private static String normalized(String value, List<Path> dirs, Path workDir) {
        String v = value;
        for (int i = 0; i < dirs.size(); i++) {
            v = v.replace(dirs.get(i).toString(), "<dir-" + i + ">");
        }
        v = v.replace(workDir.toAbsolutePath().toString(), "<work>");
        return PORT.matcher(v).replaceAll("$1:<port>");
    }

    private static void make(Path template, Map<String, String> props, List<Path> dirs,
                             Function<List<String>, KafkaBroker.ToolResult> format) throws IOException {
        // built beside, then renamed: a template is whole or absent
        Path building = Files.createTempDirectory(template.getParent() == null ? HarnessDirs.target()
            : Files.createDirectories(template.getParent()), template.getFileName() + ".");
        try {
            formatInto(building, props, dirs, format);
        } catch (RuntimeException | IOException e) {
            HarnessDirs.deleteQuietly(building);
            throw e;
        }
        Files.move(building, template, StandardCopyOption.ATOMIC_MOVE);
    }

    private static void formatInto(Path building, Map<String, String> props, List<Path> dirs,
                                   Function<List<String>, KafkaBroker.ToolResult> format) throws IOException {
        Map<String, String> own = new TreeMap<>(props);
        List<String> logDirs = new ArrayList<>();
        String configured = props.getOrDefault("log.dirs", props.get("log.dir"));
        for (String d : configured == null ? new String[0] : configured.split(",")) {
            if (!d.isBlank()) logDirs.add(building.resolve("dir-" + dirs.indexOf(Path.of(d.strip()).toAbsolutePath().normalize())).toString());
        }
        own.remove("log.dir");
        own.put("log.dirs", String.join(",", logDirs));
        if (props.get("metadata.log.dir") != null && !props.get("metadata.log.dir").isBlank()) {
            Path metadata = Path.of(props.get("metadata.log.dir").strip()).toAbsolutePath().normalize();
            own.put("metadata.log.dir", building.resolve("dir-" + dirs.indexOf(metadata)).toString());
        }
        Path serverProps = building.resolve("server.properties");
        Files.writeString(serverProps, BrokerConfigs.render(own));
        KafkaBroker.ToolResult r = format.apply(List.of("format", "-t", TEMPLATE_CLUSTER_ID, "-c", serverProps.toString(),
            "--ignore-formatted"));
        if (!r.succeeded()) {
            throw new IllegalStateException("kafka.tools.StorageTool format failed (exit " + r.exitCode() + "):\n" + r.output());
        }
        for (int i = 0; i < dirs.size(); i++) {
            if (!Files.exists(building.resolve("dir-" + i).resolve("meta.properties"))) {
                throw new IllegalStateException("the format wrote no meta.properties in " + building.resolve("dir-" + i)
                    + ":\n" + r.output());
            }
        }
    }

    private static void copy(Path from, Path to, String clusterId) throws IOException {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(from)) {
            files = walk.filter(Files::isRegularFile).collect(Collectors.toList());
        }
        for (Path f : files) {
            Path target = to.resolve(from.relativize(f).toString());
            Files.createDirectories(target.getParent());
            if (f.getFileName().toString().equals("meta.properties")) {
                Files.writeString(target, withIds(Files.readString(f, StandardCharsets.ISO_8859_1), clusterId),
                    StandardCharsets.ISO_8859_1);
            } else {
                Files.copy(f, target, StandardCopyOption.COPY_ATTRIBUTES);
            }
        }
    }

    /** meta.properties with this broker's cluster id and a directory id of its own (Kafka 3.7+ writes one per dir). */
    static String withIds(String metaProperties, String clusterId) {
        return metaProperties.lines().map(line -> {
            if (line.startsWith("cluster.id=")) return "cluster.id=" + clusterId;
            if (line.startsWith("directory.id=")) return "directory.id=" + Uuid.randomUuid();
            return line;
        }).collect(Collectors.joining("\n", "", "\n"));
    }

    private static String hash(String key) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
