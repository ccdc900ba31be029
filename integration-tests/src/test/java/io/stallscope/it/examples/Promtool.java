package io.stallscope.it.examples;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
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
        return new Promtool(ToolRequirement.require("promtool", "stallscope.promtool", "prometheus"));
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
