package io.stallscope.it.container;

import io.stallscope.it.broker.BrokerSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What a container must see of the host for a spec to mean the same as with LocalKafkaBroker. */
class ContainerKafkaBrokerTest {

    @TempDir
    Path tmp;

    @Test
    void mountsTheAgentJarReadOnlyAndAnOutputFilesDirectoryReadWrite() throws Exception {
        Path jar = Files.createFile(tmp.resolve("stallscope-agent.jar"));
        Path jfrDir = Files.createDirectory(tmp.resolve("jfr"));
        Path shim = Files.createFile(tmp.resolve("slow-disk.so"));
        Path work = Files.createDirectory(tmp.resolve("work"));
        BrokerSpec spec = BrokerSpec.builder("3.9.2")
                .javaAgent(jar, "prometheus=127.0.0.1:9405,topic.labels=true")
                .jvmArg("-XX:StartFlightRecording=filename=" + jfrDir.resolve("broker.jfr") + ",dumponexit=true")
                .jvmArg("-Dlog4j.configuration=file:" + work.resolve("broker-log4j.properties"))
                .jvmArg("-Xss1m")
                .env("LD_PRELOAD", shim.toString())
                .build();
        List<ContainerKafkaBroker.Mount> mounts = ContainerKafkaBroker.hostMounts(spec, work, Path.of("/usr/lib/jvm/x"));
        assertThat(mounts).containsExactly(
                new ContainerKafkaBroker.Mount(jar, true),
                new ContainerKafkaBroker.Mount(jfrDir, false),
                new ContainerKafkaBroker.Mount(shim, true));
    }

    @Test
    void aDirectoryAlreadyMountedCoversTheFilesInIt() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("out"));
        Path file = Files.createFile(dir.resolve("existing.txt"));
        BrokerSpec spec = BrokerSpec.builder("4.4.0")
                .jvmArg("-Da=" + dir.resolve("new.jfr"))
                .jvmArg("-Db=" + file)
                .build();
        assertThat(ContainerKafkaBroker.hostMounts(spec, tmp.resolve("work"), Path.of("/usr/lib/jvm/x")))
                .containsExactly(new ContainerKafkaBroker.Mount(dir, false));
    }

    @Test
    void kafkaOptsAreJoinedWithSpacesAndRejectWhatTheScriptWouldSplit() {
        assertThat(ContainerKafkaBroker.kafkaOpts(List.of("-javaagent:/a.jar=x=1,y=2", "-Xss1m")))
                .isEqualTo("-javaagent:/a.jar=x=1,y=2 -Xss1m");
        assertThatThrownBy(() -> ContainerKafkaBroker.kafkaOpts(List.of("-Dname=two words")))
                .hasMessageContaining("whitespace");
    }
}
