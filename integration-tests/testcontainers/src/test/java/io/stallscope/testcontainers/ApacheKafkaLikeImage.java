package io.stallscope.testcontainers;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.Image;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.images.builder.ImageFromDockerfile;
import org.testcontainers.images.builder.Transferable;
import org.testcontainers.utility.DockerImageName;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * An image that honours apache/kafka's contract (KAFKA_* variables become server properties, CLUSTER_ID,
 * {@code /etc/kafka/docker/run}, bash, KAFKA_OPTS read by kafka-run-class.sh), built here because no registry
 * answers: FROM the Kafka image our container suite builds ({@code localhost/stallscope-kafka}, labelled
 * with its version), plus the host's bash, sleep and dd and the run script in test resources. Used in place of
 * {@code apache/kafka} through {@code asCompatibleSubstituteFor}.
 */
final class ApacheKafkaLikeImage {
    static final String SUITE_REPOSITORY = "localhost/stallscope-kafka";
    private static final Map<String, DockerImageName> BUILT = new ConcurrentHashMap<>();

    private ApacheKafkaLikeImage() {
    }

    /** The suite's newest local image of this Kafka version, if one was built. */
    static Optional<String> suiteImage(String version) {
        DockerClient docker = DockerClientFactory.instance().client();
        List<Image> images = docker.listImagesCmd().withLabelFilter(Map.of("stallscope.kafka.version", version)).exec();
        // the label is inherited by the images built FROM it: keep the suite's own
        return images.stream()
                .filter(i -> i.getRepoTags() != null)
                .filter(i -> List.of(i.getRepoTags()).stream().anyMatch(t -> t.startsWith(SUITE_REPOSITORY + ":")))
                .max(Comparator.comparingLong(Image::getCreated))
                .flatMap(i -> List.of(i.getRepoTags()).stream().filter(t -> t.startsWith(SUITE_REPOSITORY + ":")).findFirst());
    }

    /** Builds (or reuses) the apache/kafka-like image of this version, as a compatible substitute. */
    static DockerImageName of(String version) {
        return BUILT.computeIfAbsent(version, ApacheKafkaLikeImage::build);
    }

    private static DockerImageName build(String version) {
        String base = suiteImage(version).orElseThrow(() -> new IllegalStateException("no local image "
                + SUITE_REPOSITORY + " of Kafka " + version + ": the container suite builds them (run"
                + " scripts/containers.sh provision, then one *ContainerIT of integration-tests)"));
        // "-dd": images of this tag carry GNU dd for PageCacheEviction (earlier ones of the same base did not)
        String tag = "localhost/stallscope-apache-kafka-like:" + version + "-" + base.substring(base.lastIndexOf('-') + 1) + "-dd";
        DockerClient docker = DockerClientFactory.instance().client();
        if (!docker.listImagesCmd().withImageNameFilter(tag).exec().isEmpty()) {
            return DockerImageName.parse(tag).asCompatibleSubstituteFor("apache/kafka");
        }
        String dockerfile = "FROM " + base + "\n"
                + "COPY bin/ /bin/\n"
                + "COPY lib/ /lib/x86_64-linux-gnu/\n"
                + "COPY run /etc/kafka/docker/run\n"
                + "COPY log4j.properties log4j2.properties /opt/kafka/config/\n"
                + "ENV JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64\n"
                + "ENTRYPOINT []\n"
                + "CMD [\"/etc/kafka/docker/run\"]\n";
        ImageFromDockerfile image = new ImageFromDockerfile(tag, false)
                .withFileFromString("Dockerfile", dockerfile)
                .withFileFromPath("bin/bash", Path.of("/bin/bash"))
                .withFileFromPath("bin/sleep", Path.of("/bin/sleep"))
                .withFileFromPath("bin/dd", Path.of("/bin/dd"))
                .withFileFromPath("lib/libtinfo.so.6", realFile(Path.of("/lib/x86_64-linux-gnu/libtinfo.so.6")))
                .withFileFromTransferable("run", Transferable.of(resource("apache-kafka-like/run"), 0100755))
                .withFileFromTransferable("log4j.properties", Transferable.of(resource("apache-kafka-like/log4j.properties")))
                .withFileFromTransferable("log4j2.properties", Transferable.of(resource("apache-kafka-like/log4j2.properties")));
        try {
            image.get(5, TimeUnit.MINUTES);
        } catch (Exception e) {
            throw new IllegalStateException("cannot build " + tag + " from " + base + ": " + e, e);
        }
        return DockerImageName.parse(tag).asCompatibleSubstituteFor("apache/kafka");
    }

    private static Path realFile(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] resource(String name) {
        try (InputStream in = ApacheKafkaLikeImage.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource " + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static boolean hostHasTools() {
        return Files.isExecutable(Path.of("/bin/bash")) && Files.isExecutable(Path.of("/bin/sleep"))
                && Files.isExecutable(Path.of("/bin/dd"))
                && Files.exists(Path.of("/lib/x86_64-linux-gnu/libtinfo.so.6"));
    }
}
