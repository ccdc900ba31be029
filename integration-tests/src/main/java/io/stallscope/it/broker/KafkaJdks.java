package io.stallscope.it.broker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Stream;

/** Finds JDKs to run brokers with. */
public final class KafkaJdks {

    public static final Path JDK17 = Path.of("/usr/lib/jvm/java-17-openjdk-amd64");
    public static final Path JVM_DIR = Path.of("/usr/lib/jvm");

    private KafkaJdks() {
    }

    /** JDK 17 at {@link #JDK17} if it exists, else the JDK running this code. */
    public static Path defaultJdk() {
        if (Files.isExecutable(JDK17.resolve("bin/java"))) {
            return JDK17;
        }
        return Path.of(System.getProperty("java.home"));
    }

    /** The JDK with the highest feature version under /usr/lib/jvm (e.g. Temurin 25), else {@link #defaultJdk()}. */
    public static Path newest() {
        return installed().entrySet().stream()
                .max(Map.Entry.comparingByValue())
                .map(Map.Entry::getKey)
                .orElseGet(KafkaJdks::defaultJdk);
    }

    /** JDK homes under /usr/lib/jvm (symlinks collapsed to their targets) with their feature versions. */
    public static Map<Path, Integer> installed() {
        Map<Path, Integer> result = new LinkedHashMap<>();
        if (!Files.isDirectory(JVM_DIR)) {
            return result;
        }
        try (Stream<Path> dirs = Files.list(JVM_DIR)) {
            List<Path> homes = dirs.filter(d -> Files.isExecutable(d.resolve("bin/java")))
                    .sorted(Comparator.comparing(Path::toString))
                    .toList();
            for (Path home : homes) {
                Path real = home.toRealPath();
                featureVersion(real).ifPresent(v -> result.putIfAbsent(real, v));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return result;
    }

    /** The feature version (17, 21, 25...) from the JDK's {@code release} file. */
    public static Optional<Integer> featureVersion(Path javaHome) {
        Path release = javaHome.resolve("release");
        if (!Files.isRegularFile(release)) {
            return Optional.empty();
        }
        Properties p = new Properties();
        try (var in = Files.newInputStream(release)) {
            p.load(in);
        } catch (IOException e) {
            return Optional.empty();
        }
        String v = p.getProperty("JAVA_VERSION");
        return v == null ? Optional.empty() : Optional.of(parseFeature(v));
    }

    /** {@code "17.0.15"} -> 17, {@code "\"25\""} -> 25, {@code "1.8.0_402"} -> 8. */
    static int parseFeature(String javaVersion) {
        String v = javaVersion.replace("\"", "").trim();
        if (v.startsWith("1.")) {
            v = v.substring(2);
        }
        int end = 0;
        while (end < v.length() && Character.isDigit(v.charAt(end))) {
            end++;
        }
        if (end == 0) {
            throw new IllegalArgumentException("not a Java version: " + javaVersion);
        }
        return Integer.parseInt(v.substring(0, end));
    }
}
