package io.stallscope.testcontainers;

import com.github.dockerjava.api.DockerClient;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.images.builder.ImageFromDockerfile;
import org.testcontainers.images.builder.Transferable;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * An image with what Strimzi's test container expects of quay.io/strimzi-test-container/test-container (no
 * registry answers here): Kafka in {@code /opt/kafka}, the working directory, with {@code bin/kafka-storage.sh},
 * {@code bin/kafka-server-start.sh} and {@code bin/kafka-metadata-quorum.sh}, plus {@code sh}, {@code bash} and {@code sleep} for its start script.
 * Built FROM the {@link ApacheKafkaLikeImage} of the same version (bash, sleep, log4j configuration), with the two
 * scripts from test resources. Strimzi reads its name from {@code strimzi.test-container.kafka.custom.image}.
 */
final class StrimziLikeImage {
    private static final Map<String, String> BUILT = new ConcurrentHashMap<>();

    private StrimziLikeImage() {
    }

    static String of(String version) {
        return BUILT.computeIfAbsent(version, StrimziLikeImage::build);
    }

    private static String build(String version) {
        String base = ApacheKafkaLikeImage.of(version).asCanonicalNameString();
        // "-q": with bin/kafka-metadata-quorum.sh, which StrimziKafkaCluster runs to see the quorum formed
        String tag = "localhost/stallscope-strimzi-like:" + base.substring(base.lastIndexOf(':') + 1) + "-q";
        DockerClient docker = DockerClientFactory.instance().client();
        if (!docker.listImagesCmd().withImageNameFilter(tag).exec().isEmpty()) {
            return tag;
        }
        String dockerfile = "FROM " + base + "\n"
                + "COPY kafka-server-start.sh kafka-storage.sh kafka-metadata-quorum.sh /opt/kafka/bin/\n"
                + "WORKDIR /opt/kafka\n";
        ImageFromDockerfile image = new ImageFromDockerfile(tag, false)
                .withFileFromString("Dockerfile", dockerfile)
                .withFileFromTransferable("kafka-server-start.sh", Transferable.of(resource("strimzi-like/kafka-server-start.sh"), 0100755))
                .withFileFromTransferable("kafka-storage.sh", Transferable.of(resource("strimzi-like/kafka-storage.sh"), 0100755))
                .withFileFromTransferable("kafka-metadata-quorum.sh", Transferable.of(resource("strimzi-like/kafka-metadata-quorum.sh"), 0100755));
        try {
            image.get(5, TimeUnit.MINUTES);
        } catch (Exception e) {
            throw new IllegalStateException("cannot build " + tag + " from " + base + ": " + e, e);
        }
        return tag;
    }

    private static byte[] resource(String name) {
        try (InputStream in = StrimziLikeImage.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource " + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
