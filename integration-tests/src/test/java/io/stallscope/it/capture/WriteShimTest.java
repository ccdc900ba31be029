package io.stallscope.it.capture;

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
 * The shim's one-shot write delay, no Kafka: a child JVM writes through FileChannel (write, positional
 * write, gathering write) to a file matching the pattern and to one that does not, with the trigger
 * file present and absent. Only an armed write to the matching file may wait, once per arming.
 */
class WriteShimTest {
    private static final long DELAY_MS = 300;

    @Test
    void delaysOneArmedWriteToAMatchingFileAndNothingElse(@TempDir Path dir) throws Exception {
        Path trigger = dir.resolve("stall-now");
        SlowDisk disk = SlowDisk.logTo(dir.resolve("shim.log"))
            .slowWriteOnTrigger("/[0-9]{20}\\.log$", Duration.ofMillis(DELAY_MS), trigger);
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path testClasses = Path.of(System.getProperty("stallscope.it.target", "target"), "test-classes");
        ProcessBuilder pb = new ProcessBuilder(java.toString(), "-cp", testClasses.toString(),
            WriteProbe.class.getName(), dir.toString(), trigger.toString());
        pb.environment().putAll(disk.env());
        pb.redirectErrorStream(true);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        Map<String, Long> ms = new HashMap<>();
        out.lines().map(l -> l.split(" ")).filter(f -> f.length == 2 && f[1].matches("\\d+"))
            .forEach(f -> ms.put(f[0], Long.parseLong(f[1])));

        assertThat(ms.get("write_unarmed_match")).as(out).isLessThan(DELAY_MS / 2);
        assertThat(ms.get("write_armed_other")).as(out).isLessThan(DELAY_MS / 2);
        assertThat(ms.get("write_armed_match")).as(out).isGreaterThanOrEqualTo(DELAY_MS);
        assertThat(ms.get("write_after_match")).as("one shot: " + out).isLessThan(DELAY_MS / 2);
        assertThat(ms.get("pwrite_armed_match")).as(out).isGreaterThanOrEqualTo(DELAY_MS);
        assertThat(ms.get("writev_armed_match")).as(out).isGreaterThanOrEqualTo(DELAY_MS);
        assertThat(ms.get("trigger_left")).isZero();

        List<ShimCall> calls = disk.calls();
        assertThat(calls).extracting(ShimCall::call).containsExactly("write", "pwrite", "writev");
        assertThat(calls).allMatch(c -> c.path().endsWith("00000000000000000000.log") && c.delayed());
    }
}
