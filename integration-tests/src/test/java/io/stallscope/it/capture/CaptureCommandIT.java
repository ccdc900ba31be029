package io.stallscope.it.capture;

import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.LocalKafkaBroker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On one real broker started without the agent: {@code capture PID --duration} writes a recording the
 * analyzer reads; bad input is one line and a non-zero exit. Then attach with profile=on, detach (the
 * profiler stops), attach again: async-profiler's library is mapped into the broker once, never twice.
 */
class CaptureCommandIT {
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void capturesOnDemandAndLoadsTheProfilerOnceAcrossAttaches(@TempDir Path tmp) throws Exception {
        BrokerSpec spec = BrokerSpec.builder("3.9.2").name("capture-cli")
            .jvmArg("-D" + StallCaptureIT.SECRET_PROPERTY + "=" + StallCaptureIT.SECRET).build();
        try (KafkaBroker broker = new LocalKafkaBroker(spec)) {
            broker.start();
            String pid = Long.toString(broker.pid());
            KafkaClients.createTopic(broker, "cli", 1, Map.of());

            Path out = tmp.resolve("on-demand.jfr");
            AgentJarCommand capture;
            try (StallProducers producers = new StallProducers(broker, "cli", 2)) {
                capture = AgentJarCommand.run("capture", pid, "--duration", "3s", "--out", out.toString());
            }
            assertThat(capture.exitCode()).as(capture.output()).isZero();
            assertThat(capture.output()).contains("recording 3000 ms into " + out).contains("written " + out);
            StallCaptureIT.assertPrivate(out);
            AnalyzerRun report = AnalyzerRun.report(out, tmp);
            assertThat(report.eventCount("jdk.ExecutionSample")).as("samples of the broker").isPositive();
            assertThat(report.json.path("threads").toString()).contains("request-handler");

            AgentJarCommand badPid = AgentJarCommand.run("capture", "999999999", "--duration", "3s");
            assertThat(badPid.exitCode()).isEqualTo(1);
            assertThat(badPid.output().strip().lines()).hasSize(1).allMatch(l -> l.startsWith("stallscope: cannot attach to process 999999999"));
            AgentJarCommand badDuration = AgentJarCommand.run("capture", pid, "--duration", "soon");
            assertThat(badDuration.exitCode()).isEqualTo(2);
            assertThat(badDuration.output()).startsWith("stallscope: bad --duration 'soon'").doesNotContain("Exception");
            AgentJarCommand exists = AgentJarCommand.run("capture", pid, "--duration", "3s", "--out", out.toString());
            assertThat(exists.exitCode()).isEqualTo(2);
            assertThat(exists.output()).contains("exists");

            Path captures = tmp.resolve("captures");
            String options = "profile=on,profile.dir=" + captures;
            AgentJarCommand attach = AgentJarCommand.run("attach", pid, options);
            assertThat(attach.exitCode()).as(attach.output()).isZero();
            StallCaptureIT.waitForLog(broker, "profile: recording with async-profiler");
            AgentJarCommand detach = AgentJarCommand.run("detach", pid);
            assertThat(detach.exitCode()).as(detach.output()).isZero();
            assertThat(detach.output()).contains("profiler stopped");
            AgentJarCommand again = AgentJarCommand.run("attach", pid, options);
            assertThat(again.exitCode()).as(again.output()).isZero();
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (Files.readAllLines(broker.logFile()).stream().filter(l -> l.contains("profile: recording with async-profiler")).count() < 2
                && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertThat(Files.readAllLines(broker.logFile()).stream()
                .filter(l -> l.contains("profile: recording with async-profiler")).count()).as("recording after re-attach").isEqualTo(2);
            long libraries = Files.readAllLines(Path.of("/proc", pid, "maps")).stream()
                .filter(l -> l.contains("libasyncProfiler")).map(l -> l.substring(l.indexOf('/'))).distinct().count();
            assertThat(libraries).as("async-profiler libraries mapped into the broker").isEqualTo(1);
            assertThat(Files.readString(broker.logFile()).lines().filter(l -> l.contains("(stallscope)") && l.contains("ERROR")))
                .isEmpty();
            KafkaClients.produce(broker, "cli", 100, 1024);
            AgentJarCommand.run("detach", pid);
        }
    }
}
