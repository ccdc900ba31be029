package io.stallscope.it.agent;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** The jar an operator deploys: one shaded jar whose dependencies cannot clash with the broker's. */
class AgentJarIT {
    @Test
    void everyDependencyIsRelocatedAndNoLoggingIsCarried() throws Exception {
        try (JarFile jar = new JarFile(AgentJar.path().toFile())) {
            List<String> foreign = jar.stream().map(e -> e.getName())
                .filter(n -> n.endsWith(".class"))
                .filter(n -> !n.startsWith("io/stallscope/"))
                .collect(Collectors.toList());
            // async-profiler's Java API is the one exception: its native library binds its methods to the class
            // name one.profiler.AsyncProfiler, so relocating it would break profile=on (the agent falls back to
            // JFR when another async-profiler is already in the process, see docs/capture.md)
            assertThat(foreign).as("classes outside io/stallscope but async-profiler's API")
                .allMatch(n -> n.startsWith("one/profiler/"))
                .contains("one/profiler/AsyncProfiler.class");
            assertThat(jar.stream().map(e -> e.getName()).filter(n -> n.startsWith("org/slf4j")
                || n.startsWith("org/apache/log4j") || n.startsWith("org/apache/logging"))).isEmpty();
            assertThat(jar.getEntry("io/stallscope/agent/shaded/bytebuddy/agent/builder/AgentBuilder.class")).isNotNull();

            Attributes manifest = jar.getManifest().getMainAttributes();
            assertThat(manifest.getValue("Premain-Class")).isEqualTo("io.stallscope.agent.StallscopeAgent");
            assertThat(manifest.getValue("Agent-Class")).isEqualTo("io.stallscope.agent.StallscopeAgent");
            assertThat(manifest.getValue("Main-Class")).isEqualTo("io.stallscope.agent.StallscopeAgent");
            assertThat(manifest.getValue("Can-Retransform-Classes")).isEqualTo("true");
        }
    }

    @Test
    void theCommandLineExplainsItself() throws Exception {
        AgentCommand.Result help = AgentCommand.run(io.stallscope.it.broker.KafkaJdks.defaultJdk(), "--help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.output()).contains("attach PID").contains("detach PID");
        AgentCommand.Result wrong = AgentCommand.run(io.stallscope.it.broker.KafkaJdks.defaultJdk(), "atach", "1");
        assertThat(wrong.exitCode()).isEqualTo(2);
        assertThat(wrong.output()).contains("unknown command 'atach'");
        AgentCommand.Result noSuchPid = AgentCommand.run(io.stallscope.it.broker.KafkaJdks.defaultJdk(), "attach", "999999999");
        assertThat(noSuchPid.exitCode()).isEqualTo(1);
        assertThat(noSuchPid.output()).contains("cannot attach to process 999999999").doesNotContain("\tat ");
    }

    @Test
    void versionAndHelpAreCommandsToo() throws Exception {
        AgentCommand.Result version = AgentCommand.run(io.stallscope.it.broker.KafkaJdks.defaultJdk(), "--version");
        assertThat(version.exitCode()).isZero();
        assertThat(version.output().strip()).isEqualTo("stallscope-agent " + System.getProperty("stallscope.version"));
        AgentCommand.Result help = AgentCommand.run(io.stallscope.it.broker.KafkaJdks.defaultJdk(), "help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.output()).contains("attach PID").contains("--version");
    }

    @Test
    void attachingToAProcessThatIsNotAJvmFailsWithoutSignallingIt() throws Exception {
        // HotSpot's attach would send SIGQUIT (killing a non-JVM) and then wait 10 s for a socket
        Process notAJvm = new ProcessBuilder("sleep", "120").start();
        try {
            AgentCommand.Result attach = AgentCommand.run(io.stallscope.it.broker.KafkaJdks.defaultJdk(), "attach",
                Long.toString(notAJvm.pid()));
            assertThat(attach.exitCode()).isEqualTo(1);
            assertThat(attach.output().strip()).isEqualTo("stallscope: cannot attach to process " + notAJvm.pid()
                + ": it is not a Java virtual machine (no libjvm.so in /proc/" + notAJvm.pid() + "/maps)");
            assertThat(notAJvm.isAlive()).as("the process was not signalled").isTrue();
        } finally {
            notAJvm.destroyForcibly();
        }
    }
}
