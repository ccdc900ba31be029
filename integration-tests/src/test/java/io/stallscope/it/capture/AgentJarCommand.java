package io.stallscope.it.capture;

import io.stallscope.it.agent.AgentJar;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** {@code java -jar stallscope-agent.jar ...} as an operator runs it, with the test's JDK. */
record AgentJarCommand(int exitCode, String output) {
    static AgentJarCommand run(String... args) throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> command = new ArrayList<>(List.of(java.toString(), "-jar", AgentJar.path().toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("agent command did not finish: " + command);
        }
        return new AgentJarCommand(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }
}
