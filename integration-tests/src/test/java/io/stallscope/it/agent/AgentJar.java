package io.stallscope.it.agent;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The shaded agent jar the build left in agent/target, exactly what an operator deploys
 * ({@code -Dstallscope.agent.jar} overrides). Every test package takes it from here.
 */
public final class AgentJar {
    private AgentJar() {
    }

    public static Path path() {
        String property = System.getProperty("stallscope.agent.jar", "../agent/target/stallscope-agent.jar");
        Path jar = Path.of(property).toAbsolutePath().normalize();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("no agent jar at " + jar + ": build the agent module first (mvn package)");
        }
        return jar;
    }
}
