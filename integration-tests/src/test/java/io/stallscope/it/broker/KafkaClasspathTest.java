package io.stallscope.it.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.eclipse.aether.artifact.Artifact;
import org.eclipse.aether.artifact.DefaultArtifact;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaClasspathTest {

    @Test
    void cacheIsUsedOnlyWhenEveryJarExists(@TempDir Path dir) throws Exception {
        Path jar = Files.createFile(dir.resolve("a.jar"));
        Path cache = dir.resolve("3.9.2.txt");
        Files.write(cache, List.of("# comment", jar.toString()));
        assertThat(KafkaClasspath.readCache(cache)).contains(List.of(jar));
        Files.write(cache, List.of(jar.toString(), dir.resolve("gone.jar").toString()));
        assertThat(KafkaClasspath.readCache(cache)).isEmpty();
        assertThat(KafkaClasspath.readCache(dir.resolve("none.txt"))).isEmpty();
    }

    @Test
    void addsLog4j2CoreAndTheBindingMatchingSlf4j() {
        assertThat(KafkaClasspath.loggingBinding(KafkaVersions.V4_1_2, resolved(
                "org.slf4j:slf4j-api:1.7.36", "org.apache.logging.log4j:log4j-api:2.24.3")))
                .containsExactly("org.apache.logging.log4j:log4j-core:2.24.3", "org.apache.logging.log4j:log4j-slf4j-impl:2.24.3");
        assertThat(KafkaClasspath.loggingBinding(KafkaVersions.V4_4_0, resolved(
                "org.slf4j:slf4j-api:2.0.17", "org.apache.logging.log4j:log4j-api:2.25.1")))
                .containsExactly("org.apache.logging.log4j:log4j-core:2.25.1", "org.apache.logging.log4j:log4j-slf4j2-impl:2.25.1");
    }

    @Test
    void keepsTheBindingThatThreeXAlreadyBrings() {
        assertThat(KafkaClasspath.loggingBinding(KafkaVersions.V3_9_2, resolved(
                "org.slf4j:slf4j-api:1.7.36", "org.slf4j:slf4j-reload4j:1.7.36"))).isEmpty();
        assertThat(KafkaClasspath.loggingBinding(KafkaVersions.V3_9_2, resolved("org.slf4j:slf4j-api:1.7.36")))
                .containsExactly("org.slf4j:slf4j-reload4j:1.7.36");
    }

    @Test
    void localRepositoryHonoursMavenRepoLocal() {
        String old = System.getProperty("maven.repo.local");
        try {
            System.setProperty("maven.repo.local", "/custom/repo");
            assertThat(KafkaClasspath.localRepository()).isEqualTo(Path.of("/custom/repo"));
            System.clearProperty("maven.repo.local");
            assertThat(KafkaClasspath.localRepository()).isEqualTo(Path.of(System.getProperty("user.home"), ".m2", "repository"));
        } finally {
            if (old != null) System.setProperty("maven.repo.local", old); else System.clearProperty("maven.repo.local");
        }
    }

    private static Map<String, Artifact> resolved(String... coords) {
        Map<String, Artifact> m = new LinkedHashMap<>();
        for (String c : coords) {
            Artifact a = new DefaultArtifact(c);
            m.put(a.getGroupId() + ":" + a.getArtifactId(), a);
        }
        return m;
    }
}
