package io.stallscope.it.mitigate;

import io.stallscope.it.slowdisk.ShimCall;
import io.stallscope.it.slowdisk.SlowDisk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shim's rename-window settings, no Kafka (what LogDirMoveIT's rename-window test relies on): a gated
 * fsync waits until the matching rename, the renaming thread returns RENAME_MS late, an open of a path that
 * is not there is logged "open_enoent" between "rename" and "rename_end", an open that succeeds is not logged.
 */
class SlowDiskRenameWindowTest {
    private static final long RENAME_MS = 1000;

    @Test
    void gatesWidensAndLogsTheRenameWindow(@TempDir Path dir) throws Exception {
        SlowDisk disk = SlowDisk.logTo(dir.resolve("shim.log"))
            .slowRename("/x$", Duration.ofMillis(RENAME_MS))
            .gateFsyncUntilRename("-future/[0-9]+\\.log$", Duration.ofSeconds(20))
            .logMissingOpens("\\.snapshot$");
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path testClasses = Path.of(System.getProperty("stallscope.it.target", "target"), "test-classes");
        ProcessBuilder pb = new ProcessBuilder(java.toString(), "-cp", testClasses.toString(),
            RenameWindowProbe.class.getName(), dir.toString());
        pb.environment().putAll(disk.env());
        pb.redirectErrorStream(true);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        Map<String, Long> steps = new HashMap<>();
        out.lines().map(l -> l.split(" ")).filter(f -> f.length == 2 && f[1].matches("\\d+"))
            .forEach(f -> steps.put(f[0], Long.parseLong(f[1])));

        assertThat(steps.get("held")).as("the gated fsync waited for the rename (started 300 ms later)")
            .isGreaterThanOrEqualTo(250);
        assertThat(steps.get("rename")).as("the rename returned late").isGreaterThanOrEqualTo(RENAME_MS);
        assertThat(steps.get("missing")).as("the file was not under its old name inside the window").isEqualTo(1);
        List<String> calls = disk.calls().stream().map(c -> c.call() + " " + c.thread() + " "
            + Path.of(c.path()).getFileName()).toList();
        assertThat(calls).as(out).containsExactly(
            "gate_hold held 00000000000000000000.log",
            "rename mover x",
            "gate held 00000000000000000000.log",
            "open_enoent java 00000000000000000010.snapshot",
            "rename_end mover x");
        assertThat(disk.calls()).filteredOn(c -> c.call().equals("gate")).singleElement()
            .extracting(ShimCall::delayMs).satisfies(ms -> assertThat((double) ms).isGreaterThanOrEqualTo(250.0));
    }
}
