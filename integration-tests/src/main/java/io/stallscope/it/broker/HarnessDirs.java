package io.stallscope.it.broker;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where the harness keeps its files: the integration-tests module's {@code target} directory. */
public final class HarnessDirs {

    /** System property naming the target directory (failsafe sets it to {@code ${project.build.directory}}). */
    public static final String TARGET_PROPERTY = "stallscope.it.target";

    private HarnessDirs() {
    }

    public static Path target() {
        String prop = System.getProperty(TARGET_PROPERTY, "").trim();
        if (!prop.isEmpty()) {
            return Path.of(prop).toAbsolutePath();
        }
        Path cwd = Path.of("").toAbsolutePath();
        if (Files.isRegularFile(cwd.resolve("integration-tests/pom.xml"))) {
            return cwd.resolve("integration-tests/target");
        }
        return cwd.resolve("target");
    }

    public static Path brokers() {
        return target().resolve("brokers");
    }

    /** Deletes {@code dir} and everything under it, as far as it can: a leftover under target/ harms nothing. */
    public static void deleteQuietly(Path dir) {
        try (java.util.stream.Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (java.io.IOException | RuntimeException e) {
            // what is left stays under target/
        }
    }
}
