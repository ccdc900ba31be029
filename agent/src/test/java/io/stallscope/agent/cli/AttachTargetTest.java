package io.stallscope.agent.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What attach accepts before it sends HotSpot's attach signal (SIGQUIT), which would stop a process that is no
 * JVM, or a JVM started with -Xrs: checked on this JVM through the real /proc, and on /proc trees laid out as
 * Linux shows such processes.
 */
class AttachTargetTest {
    @Test
    void thisJvmIsAccepted() {
        assertThat(AttachTarget.onThisMachine().whyNot(Long.toString(ProcessHandle.current().pid()))).isNull();
    }

    @Test
    void aBrokerWhoseLibjvmWasDeletedByAJdkUpgradeIsAccepted(@TempDir Path proc) throws Exception {
        process(proc, "42", "7f00-7f10 r-xp 0 fd:01 123 /usr/lib/jvm/java-17/lib/server/libjvm.so (deleted)",
            "main", "Signal Dispatch", "VM Thread");
        assertThat(new AttachTarget(proc).whyNot("42")).isNull();
    }

    @Test
    void aProgramThatOnlyMapsAFileNamedLibjvmIsRefused(@TempDir Path proc) throws Exception {
        process(proc, "43", "7f00-7f10 r--p 0 fd:01 123 /home/u/copy/libjvm.so", "reader");
        assertThat(new AttachTarget(proc).whyNot("43")).startsWith("it runs no HotSpot Signal Dispatcher thread");
    }

    @Test
    void aProcessWithoutLibjvmIsRefused(@TempDir Path proc) throws Exception {
        process(proc, "44", "7f00-7f10 r-xp 0 fd:01 9 /usr/lib/x86_64-linux-gnu/libc.so.6", "Signal Dispatch");
        assertThat(new AttachTarget(proc).whyNot("44")).startsWith("it is not a Java virtual machine");
        assertThat(new AttachTarget(proc).whyNot("45")).isEqualTo("no such process");
    }

    private static void process(Path proc, String pid, String mapsLine, String... threads) throws Exception {
        Files.createDirectories(proc.resolve("self"));
        Path dir = Files.createDirectories(proc.resolve(pid));
        Files.writeString(dir.resolve("maps"), "5600-5601 r-xp 0 fd:01 1 /usr/bin/prog\n" + mapsLine + "\n");
        for (int i = 0; i < threads.length; i++) {
            Path task = Files.createDirectories(dir.resolve("task").resolve(Integer.toString(1000 + i)));
            Files.writeString(task.resolve("comm"), threads[i] + "\n");
        }
    }
}
