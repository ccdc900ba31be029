package io.stallscope.agent.kafka;

import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.pool.TypePool;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The jars of each supported Kafka version that the build copied into target/kafka-jars/VERSION/ (see the
 * agent's pom), read as class files: no class is loaded, no broker started.
 */
public final class KafkaJars implements AutoCloseable {
    private final List<ClassFileLocator> locators = new ArrayList<>();
    private final TypePool pool;

    private KafkaJars(Path dir) {
        try (Stream<Path> jars = Files.list(dir)) {
            for (Path jar : jars.filter(p -> p.toString().endsWith(".jar")).sorted().collect(Collectors.toList())) {
                locators.add(ClassFileLocator.ForJarFile.of(jar.toFile()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        // the JDK's own classes (java.io.File in a signature, FileChannelImpl), but not the test class path,
        // whose kafka-clients would answer for every version
        List<ClassFileLocator> all = new ArrayList<>(locators);
        all.add(ClassFileLocator.ForClassLoader.ofPlatformLoader());
        pool = TypePool.Default.of(new ClassFileLocator.Compound(all));
    }

    public static KafkaJars of(String version) {
        Path dir = root().resolve(version);
        if (!Files.isDirectory(dir)) {
            throw new IllegalStateException("no jars of Kafka " + version + " in " + dir
                + ": add the version's artifactItems to the agent's pom (maven-dependency-plugin, kafka-jars)");
        }
        return new KafkaJars(dir);
    }

    /** target/kafka-jars, as the pom passes it (or as seen from the module directory in an IDE). */
    public static Path root() {
        return Paths.get(System.getProperty("stallscope.kafka.jars", "target/kafka-jars"));
    }

    /** The supported versions, from the parent pom's stallscope.kafka.supported. */
    public static List<String> supported() {
        return list("stallscope.kafka.supported");
    }

    /**
     * The versions the catalog is checked against, from the parent pom's stallscope.kafka.catalog: the supported
     * ones and the last patch of every minor between them.
     */
    public static List<String> catalog() {
        return list("stallscope.kafka.catalog");
    }

    private static List<String> list(String property) {
        String list = System.getProperty(property, "");
        if (list.isBlank()) {
            throw new IllegalStateException(property + " not set: run through Maven (the parent pom sets it)");
        }
        return Arrays.stream(list.split(",")).map(String::trim).filter(s -> !s.isEmpty()).collect(Collectors.toList());
    }

    /** The version directories the build filled. */
    static List<String> fetched() {
        try (Stream<Path> dirs = Files.list(root())) {
            return dirs.filter(Files::isDirectory).map(p -> p.getFileName().toString()).sorted(KafkaReleases::compare)
                .collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public TypePool pool() {
        return pool;
    }

    @Override
    public void close() throws IOException {
        for (ClassFileLocator l : locators) {
            l.close();
        }
    }
}
