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

    /**
     * A default capture dir under a shared temp dir that another user created first, or a link planted there: the
     * start-up line says at once that there will be no captures, and why (the directory is opened later, on the
     * capture thread, whose error line would come after it).
     */
    @Test
    void aDirectoryTakenByAnotherUserOrALinkIsNamedInTheStartUpLine(@TempDir Path tmp) throws Exception {
        Path link = Files.createSymbolicLink(tmp.resolve("stallscope-captures-kafka"), Files.createDirectory(tmp.resolve("elsewhere")));
        CaptureSettings settings = new CaptureSettings(link, 1_000_000L, 1_000_000_000L, 2, 0, 10, 1L << 30, "jfr", 20_000_000L);
        assertThat(CaptureDir.refusal(link)).isEqualTo(link + " is not a directory (symbolic links are refused)");
        assertThat(StallCapture.summary(settings))
            .isEqualTo("profile on but no captures: " + link + " is not a directory (symbolic links are refused) (set profile.dir)");
        assertThat(CaptureDir.refusal(tmp.resolve("missing"))).as("created later, privately").isNull();

        Path taken = Files.createDirectory(tmp.resolve("taken"));
        java.nio.file.attribute.UserPrincipal nobody;
        try {
            nobody = taken.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
            Files.setOwner(taken, nobody);
        } catch (java.io.IOException | UnsupportedOperationException e) {
            return; // not root: only the link case can be made here
        }
        assertThat(CaptureDir.refusal(taken)).isEqualTo(taken + " belongs to nobody, not to this process's user");
    }

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
