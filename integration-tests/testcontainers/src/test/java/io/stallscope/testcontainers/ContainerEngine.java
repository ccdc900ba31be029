package io.stallscope.testcontainers;

import org.junit.jupiter.api.Assumptions;
import org.testcontainers.DockerClientFactory;

/** The tests that start containers need an engine and the suite's local Kafka images: skip without, fail under CI. */
final class ContainerEngine {
    static final String VERSION = "3.9.2";

    private ContainerEngine() {
    }

    static void require() {
        require(VERSION);
    }

    /** An engine and the suite's local image of this Kafka version. */
    static void require(String version) {
        String missing = null;
        if (!DockerClientFactory.instance().isDockerAvailable()) {
            missing = "no container engine answers (scripts/containers.sh provision, then eval \"$(scripts/containers.sh env)\")";
        } else if (!ApacheKafkaLikeImage.hostHasTools()) {
            missing = "the host has no /bin/bash, /bin/sleep, /bin/dd or libtinfo.so.6 to put into the apache/kafka-like image";
        } else if (ApacheKafkaLikeImage.suiteImage(version).isEmpty()) {
            missing = "no local image " + ApacheKafkaLikeImage.SUITE_REPOSITORY + " of Kafka " + version
                    + " (integration-tests' container suite builds it)";
        }
        if (missing != null) {
            if ("true".equals(System.getenv("CI"))) {
                throw new IllegalStateException(missing);
            }
            Assumptions.abort(missing);
        }
    }
}
