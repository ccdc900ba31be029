package io.stallscope.agent.capture;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.logging.BrokerLog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A capture directory that cannot be created stops capturing with one error line (no slf4j here, so
 * the agent's lines go to stderr); later stalls are ignored without a word and nothing throws into the
 * stalled thread.
 */
class CaptureFailureTest {
    @Test
    void anUnusableDirectoryIsOneLineAndNothingElse(@TempDir Path tmp) throws Exception {
        Path file = Files.writeString(tmp.resolve("not-a-dir"), "");
        CaptureSettings settings = new CaptureSettings(file.resolve("captures"), 1_000_000L, 1_000_000_000L, 2, 0, 10,
            1L << 30, "jfr", 20_000_000L);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        PrintStream stderr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            StallCapture capture = StallCapture.start(settings, registry, BrokerLog.get());
            // the directory is opened on the capture thread: wait, bounded, until it has failed
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (registry.get("stallscope_captures").tag("result", "error").counter().count() < 1
                && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            capture.stalled(Op.RECORDS_APPEND, 500_000_000L, "data-plane-kafka-request-handler-1", null);
            capture.stalled(Op.RECORDS_APPEND, 500_000_000L, "data-plane-kafka-request-handler-2", null);
            // longer than the 1 s after-window: a capture the stalls wrongly scheduled would have run by now
            Thread.sleep(1500);
            capture.stop();
        } finally {
            System.setErr(stderr);
        }
        String out = captured.toString(StandardCharsets.UTF_8);
        assertThat(out.lines().filter(l -> l.contains("profile:"))).as(out).hasSize(1)
            .allMatch(l -> l.contains("ERROR") && l.contains("profile: cannot use the capture directory " + file.resolve("captures")));
        assertThat(registry.get("stallscope_captures").tag("result", "error").counter().count()).isEqualTo(1.0);
        assertThat(registry.get("stallscope_captures").tag("result", "written").counter().count()).isZero();
    }
}
