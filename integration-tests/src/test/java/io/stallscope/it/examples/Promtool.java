package io.stallscope.it.examples;

import org.junit.jupiter.api.Assumptions;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Prometheus's own checker (Debian's {@code prometheus} package, installed by scripts/provision.sh).
 * Missing, a test using it fails under CI=true and is skipped with the reason elsewhere.
 */
final class Promtool {
    record Result(int exitCode, String output) {
    }

    private final Path binary;

    private Promtool(Path binary) {
        this.binary = binary;
    }

    static Promtool require() {
        Path found = find();
        if (found == null) {
            String reason = "promtool not found on PATH (Debian: apt-get install prometheus, or run scripts/provision.sh)";
            if ("true".equals(System.getenv("CI"))) {
                throw new AssertionError("CI=true and " + reason);
            }
            System.err.println("SKIPPED: " + reason);
            Assumptions.abort(reason);
        }
        return new Promtool(found);
    }

    private static Path find() {
        String property = System.getProperty("stallscope.promtool", "");
        if (!property.isBlank()) {
            return Path.of(property);
        }
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path p = Path.of(dir, "promtool");
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    Result run(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(binary.toString());
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("promtool did not finish: " + command);
        }
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }
}
