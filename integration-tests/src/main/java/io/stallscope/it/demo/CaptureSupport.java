package io.stallscope.it.demo;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The agent's spike-triggered capture (profile=on): whether this agent build has it, the options that
 * turn it on, and the capture files it wrote ({@code stallscope-<time>-<op>.jfr} in profile.dir).
 */
final class CaptureSupport {
    /** An op this long starts a capture: the simulated fsync (100 ms) does, ordinary ops do not. */
    static final Duration TRIGGER = Duration.ofMillis(80);
    /** stallscope-20261121T081502Z-records_append.jfr: the stall's end (UTC) and its op. */
    private static final Pattern NAME = Pattern.compile("stallscope-(\\d{8}T\\d{6}Z)-.+\\.jfr");

    private final boolean available;
    private final String reason;

    private CaptureSupport(boolean available, String reason) {
        this.available = available;
        this.reason = reason;
    }

    /**
     * Asks the agent jar itself: a build without captures answers {@code capture} with "unknown command".
     * (Passing profile=on to such a build would make the agent refuse all its options.)
     */
    static CaptureSupport probe(Path java, Path agentJar) {
        try {
            Process p = new ProcessBuilder(java.toString(), "-jar", agentJar.toString(), "capture")
                .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new CaptureSupport(false, "the agent jar did not answer within 30 s");
            }
            if (out.contains("unknown command")) {
                return new CaptureSupport(false, "capture not available in this agent build (" + agentJar.getFileName()
                    + " has no spike-triggered capture yet)");
            }
            return new CaptureSupport(true, "");
        } catch (IOException e) {
            return new CaptureSupport(false, "cannot run the agent jar: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new CaptureSupport(false, "interrupted");
        }
    }

    boolean available() {
        return available;
    }

    String reason() {
        return reason;
    }

    /**
     * Agent options for captures into {@code dir}, at most one every 10 s. Any op may trigger one (the
     * agent has one threshold for all), so a run may also capture, say, a slow fsync of the metadata
     * log at start-up: the report over all of them ranks what hurt the clients first.
     */
    static String agentOptions(Path dir) {
        return "profile=on,profile.dir=" + dir.toAbsolutePath() + ",profile.trigger=" + TRIGGER.toMillis() + "ms"
            + ",profile.cooldown=10s,profile.max-files=10";
    }

    /** The capture files in {@code dir}, oldest first (their names start with the stall's time). */
    static List<Path> files(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(f -> NAME.matcher(f.getFileName().toString()).matches()).sorted().toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /**
     * Waits up to {@code timeout} for a capture the broker log has announced (the agent announces a file
     * once it is complete); returns the announced ones then, oldest first.
     */
    static List<Path> awaitAnnounced(Path dir, Path brokerLog, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            List<String> said = announcements(brokerLog);
            List<Path> done = files(dir).stream().filter(f -> said.stream().anyMatch(l -> l.contains(f.toString()))).toList();
            if (!done.isEmpty() || System.nanoTime() > deadline) {
                return done;
            }
            Thread.sleep(250);
        }
    }

    /** The broker log's lines announcing captures (INFO, ending "(stallscope)"). */
    static List<String> announcements(Path brokerLog) {
        List<String> out = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(brokerLog, StandardCharsets.ISO_8859_1)) {
                if (line.endsWith("(stallscope)") && line.contains(".jfr")) {
                    out.add(line);
                }
            }
        } catch (IOException e) {
            // no log, no announcements
        }
        return out;
    }
}
