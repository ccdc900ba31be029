package io.stallscope.it.capture;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs {@code analyzer/bin/analyzer report FILE --json OUT} as an operator would and reads the JSON. */
public final class AnalyzerRun {
    public final String text;
    public final JsonNode json;

    private AnalyzerRun(String text, JsonNode json) {
        this.text = text;
        this.json = json;
    }

    public static AnalyzerRun report(Path recording, Path workDir) throws Exception {
        Path launcher = Path.of(System.getProperty("stallscope.analyzer.launcher", "../analyzer/bin/analyzer"))
            .toAbsolutePath().normalize();
        Path json = workDir.resolve(recording.getFileName() + ".json");
        List<String> command = new ArrayList<>(List.of(launcher.toString(), "report", recording.toString(),
            "--json", json.toString()));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IllegalStateException("analyzer did not finish: " + command);
        }
        if (p.exitValue() != 0) {
            throw new IllegalStateException("analyzer failed (" + p.exitValue() + "): " + out);
        }
        return new AnalyzerRun(out, new ObjectMapper().readTree(Files.readAllBytes(json)));
    }

    List<JsonNode> spans(String op) {
        List<JsonNode> out = new ArrayList<>();
        json.path("spans").forEach(s -> {
            if (op.equals(s.path("op").asText())) {
                out.add(s);
            }
        });
        return out;
    }

    /** Contentions whose holder (recorded or inferred) is the given thread. */
    List<JsonNode> contentionsHeldBy(String thread) {
        List<JsonNode> out = new ArrayList<>();
        json.path("contentions").forEach(c -> {
            boolean held = thread.equals(c.path("holder").path("thread").asText());
            for (JsonNode h : c.path("holders")) {
                held |= thread.equals(h.path("thread").asText());
            }
            if (held) {
                out.add(c);
            }
        });
        return out;
    }

    public List<JsonNode> findings(String kind) {
        List<JsonNode> out = new ArrayList<>();
        json.path("findings").forEach(f -> {
            if (kind.equals(f.path("kind").asText())) {
                out.add(f);
            }
        });
        return out;
    }

    /** Waiters of the contended lock named {@code identity} (class@address, as the findings name it). */
    List<JsonNode> waitersOfLock(String identity) {
        List<JsonNode> out = new ArrayList<>();
        json.path("contentions").forEach(c -> {
            if (c.path("lock").asText().startsWith(identity + " ")) {
                c.path("waiters").forEach(out::add);
            }
        });
        return out;
    }

    long eventCount(String type) {
        long n = 0;
        for (JsonNode f : json.path("files")) {
            n += f.path("eventCounts").path(type).asLong();
        }
        return n;
    }
}
