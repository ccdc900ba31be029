package io.stallscope.analyzer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.stream.Stream;

/** Finds the shared public recordings: -Dstallscope.fixtures, else ../shared/fixtures/jfr above the project. */
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
        throw new IllegalStateException("fixtures not found: set -Dstallscope.fixtures=<dir of shared/fixtures/jfr>");
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
