package io.stallscope.agent.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/** The agent jar's command line hands check-logs its arguments and returns its status. */
class AgentCliCheckLogsTest {
    @Test
    void checkLogsIsACommandOfTheAgentJar(@TempDir Path logDir) throws Exception {
        Files.createDirectories(logDir.resolve("orders-3"));
        assertThat(AgentCli.run(Arrays.asList("check-logs", logDir.toString()))).isZero();
        assertThat(AgentCli.run(Arrays.asList("check-logs"))).isEqualTo(2);
        assertThat(AgentCli.run(Arrays.asList("check-logs", logDir.resolve("absent").toString()))).isEqualTo(1);
    }
}
