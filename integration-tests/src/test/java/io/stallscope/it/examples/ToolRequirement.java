package io.stallscope.it.examples;

import org.junit.jupiter.api.Assumptions;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A program a test needs from the machine (promtool, prometheus, chromium: Debian packages that
 * scripts/provision.sh installs). Missing, the test fails under CI=true and is skipped elsewhere, with the
 * reason printed.
 */
final class ToolRequirement {
    private ToolRequirement() {
    }

    static Path require(String name, String property, String debianPackage) {
        String configured = System.getProperty(property, "");
        if (!configured.isBlank() && Files.isExecutable(Path.of(configured))) {
            return Path.of(configured);
        }
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path p = Path.of(dir, name);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        String reason = name + " not found on PATH or in -D" + property + " (Debian: apt-get install " + debianPackage
            + ", or run scripts/provision.sh)";
        if ("true".equals(System.getenv("CI"))) {
            throw new AssertionError("CI=true and " + reason);
        }
        System.err.println("SKIPPED: " + reason);
        Assumptions.abort(reason);
        return null;
    }
}
