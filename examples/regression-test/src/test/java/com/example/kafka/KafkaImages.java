package com.example.kafka;

import org.testcontainers.utility.DockerImageName;

/** apache/kafka of a version, or an image of the same contract from -Dkafka.image.repository (a local mirror). */
final class KafkaImages {
    private KafkaImages() {
    }

    static DockerImageName apacheKafka(String version) {
        String repository = System.getProperty("kafka.image.repository", "apache/kafka");
        return DockerImageName.parse(repository + ":" + version).asCompatibleSubstituteFor("apache/kafka");
    }
}
