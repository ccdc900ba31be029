package io.stallscope.it.agent;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs {@code java -jar stallscope-agent.jar ...} as an operator would, with the broker's JDK. */
final class AgentCommand {
    record Result(int exitCode, String output) {
    }

    private AgentCommand() {
    }

    static Result run(Path javaHome, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(javaHome.resolve("bin/java").toString(), "-jar",
            AgentJar.path().toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("agent command did not finish: " + command);
        }
        return new Result(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }
}
