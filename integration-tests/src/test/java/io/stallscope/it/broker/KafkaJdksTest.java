package io.stallscope.it.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaJdksTest {

    @Test
    void parsesFeatureVersions() {
        assertThat(KafkaJdks.parseFeature("\"17.0.15\"")).isEqualTo(17);
        assertThat(KafkaJdks.parseFeature("25")).isEqualTo(25);
        assertThat(KafkaJdks.parseFeature("\"1.8.0_402\"")).isEqualTo(8);
        assertThat(KafkaJdks.parseFeature("21-ea")).isEqualTo(21);
    }

    @Test
    void readsReleaseFile(@TempDir Path home) throws Exception {
        Files.writeString(home.resolve("release"), "IMPLEMENTOR=\"x\"\nJAVA_VERSION=\"25.0.1\"\n");
        assertThat(KafkaJdks.featureVersion(home)).contains(25);
        assertThat(KafkaJdks.featureVersion(home.resolve("missing"))).isEmpty();
    }

    @Test
    void newestIsAtLeastTheRunningJdk() {
        Path newest = KafkaJdks.newest();
        assertThat(newest.resolve("bin/java")).isExecutable();
        assertThat(KafkaJdks.featureVersion(newest).orElse(Runtime.version().feature()))
                .isGreaterThanOrEqualTo(KafkaJdks.featureVersion(KafkaJdks.defaultJdk()).orElse(0));
    }
}
