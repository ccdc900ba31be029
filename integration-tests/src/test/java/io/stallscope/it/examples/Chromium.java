package io.stallscope.it.examples;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Headless Chromium without network (every host maps to nothing), for screenshots of local HTML files. */
public final class Chromium {
    private final Path binary;

    private Chromium(Path binary) {
        this.binary = binary;
    }

    public static Chromium require() {
        return new Chromium(ToolRequirement.require("chromium", "stallscope.chromium", "chromium"));
    }

    public void screenshot(String url, Path png, int width, int height) throws IOException, InterruptedException {
        Path profile = Files.createTempDirectory("stallscope-chromium-");
        List<String> cmd = new ArrayList<>(List.of(binary.toString(), "--headless", "--no-sandbox", "--disable-gpu",
            "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--disable-extensions", "--host-resolver-rules=MAP * ~NOTFOUND", "--hide-scrollbars",
            "--user-data-dir=" + profile, "--window-size=" + width + "," + height, "--screenshot=" + png, url));
        Files.deleteIfExists(png);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("chromium did not finish in 120 s");
            }
        } finally {
            try (var walk = Files.walk(profile)) {
                walk.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }
}
