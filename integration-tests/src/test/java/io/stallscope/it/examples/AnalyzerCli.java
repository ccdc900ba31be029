package io.stallscope.it.examples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** {@code analyzer/bin/analyzer report}, the command an operator runs, on the jar the build made. */
public final class AnalyzerCli {
    private AnalyzerCli() {
    }

    /** Runs report with the given extra arguments; returns the text report (stdout). */
    public static String report(List<String> args, Path outputLog) throws Exception {
        Path root = Examples.root();
        Path jar = root.resolve("analyzer/target/stallscope-analyzer.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("no " + jar + ": build the analyzer module first (mvn package)");
        }
        List<String> cmd = new ArrayList<>(List.of(root.resolve("analyzer/bin/analyzer").toString(), "report"));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(outputLog.toFile());
        pb.environment().put("STALLSCOPE_ANALYZER_JAR", jar.toString());
        pb.environment().put("JAVA_OPTS", "-Xmx1g");
        Process p = pb.start();
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError("analyzer did not finish in 5 minutes: " + cmd);
        }
        String out = Files.readString(outputLog, StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new AssertionError("analyzer exited " + p.exitValue() + ": " + out);
        }
        return out;
    }

    public static JsonNode json(Path file) throws Exception {
        return new ObjectMapper().readTree(file.toFile());
    }
}
