package io.stallscope.it.container;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.exception.NotFoundException;
import io.stallscope.it.broker.KafkaClasspath;
import io.stallscope.it.broker.KafkaJdks;
import io.stallscope.it.broker.KafkaVersion;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.images.builder.ImageFromDockerfile;
import org.testcontainers.images.builder.Transferable;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The images brokers run in. {@code local} (the default): one image per Kafka version, built here
 * without any registry, {@code FROM} the base image that {@code scripts/containers.sh} imports (the
 * host's JDK 17 and newest JDK at their host paths, /bin/sh, their libraries), plus that version's
 * jars as {@link KafkaClasspath} resolves them from Maven Central, plus an entrypoint that starts
 * Kafka the way {@code kafka-run-class.sh} does. Tagged by a hash of what went in, so a run reuses
 * the images of the previous one and a changed classpath or base builds a new one.
 * {@code official} ({@code -Dstallscope.container.images=official}): Apache's {@code apache/kafka}
 * images (3.7.0 and later), for an engine that can pull; they carry the real kafka-run-class.sh.
 */
public final class ContainerImages {

    /** Must match BASE_IMAGE in scripts/containers.sh. */
    public static final String BASE_IMAGE = "localhost/stallscope-base:1";
    public static final String REPOSITORY = "localhost/stallscope-kafka";
    /** The entrypoint inside the local images; the official ones have Kafka's own at the same path. */
    public static final String RUN_CLASS = "/opt/kafka/bin/kafka-run-class.sh";
    public static final String SOURCE_PROPERTY = "stallscope.container.images";

    private static final Map<KafkaVersion, String> BUILT = new ConcurrentHashMap<>();

    private ContainerImages() {
    }

    public enum Source { LOCAL, OFFICIAL }

    public static Source source() {
        String v = System.getProperty(SOURCE_PROPERTY, "local").trim();
        return switch (v.isEmpty() ? "local" : v) {
            case "local" -> Source.LOCAL;
            case "official" -> Source.OFFICIAL;
            default -> throw new IllegalArgumentException("-D" + SOURCE_PROPERTY + " must be local or official, not " + v);
        };
    }

    /** The JDKs inside the local images (at their host paths), as the base image was built. */
    public static Set<Path> jdksInBaseImage() {
        return Set.of(realPath(KafkaJdks.JDK17), realPath(KafkaJdks.newest()));
    }

    /** The image to run a broker (or tool) of {@code version} in; builds the local one if missing. */
    public static String kafkaImage(KafkaVersion version) {
        if (source() == Source.OFFICIAL) {
            if (!version.isAtLeast(3, 7, 0)) {
                throw new IllegalArgumentException("apache/kafka images exist from 3.7.0 only, not for Kafka " + version
                        + "; use -D" + SOURCE_PROPERTY + "=local");
            }
            return "apache/kafka:" + version;
        }
        return BUILT.computeIfAbsent(version, ContainerImages::buildIfMissing);
    }

    private static String buildIfMissing(KafkaVersion version) {
        DockerClient docker = DockerClientFactory.instance().client();
        String baseId;
        try {
            baseId = docker.inspectImageCmd(BASE_IMAGE).exec().getId();
        } catch (NotFoundException e) {
            throw new IllegalStateException("no base image " + BASE_IMAGE + " in the container engine: run"
                    + " scripts/provision.sh (or scripts/containers.sh base-image) first");
        }
        List<Path> jars = KafkaClasspath.of(version);
        Map<String, Path> byName = new LinkedHashMap<>();
        for (Path jar : jars) {
            Path other = byName.putIfAbsent(jar.getFileName().toString(), jar);
            if (other != null && !other.equals(jar)) {
                throw new IllegalStateException("two jars named " + jar.getFileName() + " on the Kafka " + version
                        + " classpath: " + other + " and " + jar);
            }
        }
        String classpath = String.join("\n", byName.keySet()) + "\n";
        String runClass = resource("kafka-run-class.sh");
        String dockerfile = """
                FROM %s
                COPY libs/ /opt/kafka/libs/
                COPY kafka-run-class.sh %s
                LABEL stallscope.kafka.version="%s"
                WORKDIR /opt/kafka
                ENTRYPOINT ["%s"]
                """.formatted(BASE_IMAGE, RUN_CLASS, version, RUN_CLASS);

        MessageDigest sha = sha256();
        sha.update((baseId + "\n" + dockerfile + runClass + classpath).getBytes(StandardCharsets.UTF_8));
        for (Path jar : byName.values()) {
            sha.update((jar + " " + size(jar) + "\n").getBytes(StandardCharsets.UTF_8));
        }
        String tag = REPOSITORY + ":" + version + "-" + HexFormat.of().formatHex(sha.digest()).substring(0, 12);
        try {
            docker.inspectImageCmd(tag).exec();
            return tag; // built by an earlier run
        } catch (NotFoundException e) {
            // build it below
        }
        long t0 = System.nanoTime();
        ImageFromDockerfile image = new ImageFromDockerfile(tag, false)
                .withFileFromString("Dockerfile", dockerfile)
                .withFileFromTransferable("kafka-run-class.sh", Transferable.of(runClass.getBytes(StandardCharsets.UTF_8), 0100755))
                .withFileFromString("libs/classpath.txt", classpath);
        byName.forEach((name, path) -> image.withFileFromPath("libs/" + name, path));
        try {
            image.get(10, TimeUnit.MINUTES);
        } catch (Exception e) {
            throw new IllegalStateException("cannot build " + tag + " from " + BASE_IMAGE + ": " + e, e);
        }
        System.out.printf("[stallscope-it] built %s (%d jars) in %d ms%n", tag, byName.size(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
        return tag;
    }

    static String resource(String name) {
        try (InputStream in = ContainerImages.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + name + " next to " + ContainerImages.class);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long size(Path p) {
        try {
            return Files.size(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path realPath(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException e) {
            return p.toAbsolutePath().normalize();
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
