package io.stallscope.analyzer;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.stream.Stream;

/**
 * Finds the shared public recordings: -Dstallscope.fixtures, else ../shared/fixtures/jfr above the project. A clone
 * of the project alone has none: a test that needs them is then skipped with the reason printed, and fails under
 * CI=true, where they must be.
 */
public final class Fixtures {
    private Fixtures() {
    }

    public static Path dir() {
        String prop = System.getProperty("stallscope.fixtures");
        if (prop != null && Files.isDirectory(Paths.get(prop))) return Paths.get(prop).toAbsolutePath().normalize();
        for (Path p = Paths.get("").toAbsolutePath(); p != null; p = p.getParent()) {
            Path candidate = p.resolve("shared/fixtures/jfr");
            if (Files.isDirectory(candidate)) return candidate;
        }
        String reason = "the shared JFR fixtures are not here (no -Dstallscope.fixtures directory, no shared/fixtures/jfr"
            + " above " + Paths.get("").toAbsolutePath() + "): set -Dstallscope.fixtures=<dir of shared/fixtures/jfr>";
        if ("true".equals(System.getenv("CI"))) {
            throw new AssertionError("CI=true and " + reason);
        }
        System.err.println("SKIPPED: " + reason);
        Assumptions.abort(reason);
        return null;
    }

    public static Path file(String name) {
        return dir().resolve(name);
    }

    public static List<Path> recordings() throws IOException {
        try (Stream<Path> s = Files.list(dir())) {
            return s.filter(p -> p.toString().endsWith(".jfr")).sorted().toList();
        }
    }
}
