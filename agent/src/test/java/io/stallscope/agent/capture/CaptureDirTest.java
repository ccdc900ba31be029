package io.stallscope.agent.capture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Work directories left by killed brokers are removed at the next start, but only this host's: on a volume
 * shared by containers, each in its own PID namespace, another broker's live directory can carry a pid that
 * does not exist here (the old .work-PID name removed it).
 */
class CaptureDirTest {
    /** Above /proc/sys/kernel/pid_max's ceiling (2^22): no process has it. */
    private static final long DEAD_PID = 4_194_305L;

    @Test
    void onlyThisHostsStaleWorkDirectoriesAreRemoved(@TempDir Path tmp) throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("captures"));
        String host = CaptureDir.hostname();
        Path ourDead = Files.createDirectory(dir.resolve(".work-" + host + "-" + DEAD_PID));
        Files.writeString(ourDead.resolve("chunk-1.jfr"), "x");
        Path otherHost = Files.createDirectory(dir.resolve(".work-kafka-1." + host + "x-" + DEAD_PID));
        Path legacy = Files.createDirectory(dir.resolve(".work-" + DEAD_PID));

        CaptureDir opened = CaptureDir.open(dir);

        assertThat(ourDead).as("this host's, its broker gone").doesNotExist();
        assertThat(otherHost).as("another host's (another PID namespace)").exists();
        assertThat(legacy).as("an old name says nothing of its host").exists();
        assertThat(opened.work().getFileName().toString()).isEqualTo(".work-" + host + "-" + ProcessHandle.current().pid());
        opened.removeWork();
    }
}
