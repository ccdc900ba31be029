package io.stallscope.it.agent;

import io.stallscope.it.broker.PrometheusScrape;
import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.FreePorts;
import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.KafkaVersion;
import io.stallscope.it.broker.KafkaJdks;
import io.stallscope.it.broker.LocalKafkaBroker;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * During an incident: attach to a broker that is already running, see its stalls, detach again,
 * and the broker keeps serving as before. Attached with mitigate=hole-repair, it is also issue 53's control that an
 * agent attached at runtime touches nothing in recovery: new logs are created and loaded while it is woven in, and
 * after the detach a SIGKILL and a restart (stock recovery, no agent) keep every record, with no hole named.
 */
class AgentAttachIT {
    private static final String TOPIC = "attached";
    private static final String NEW_TOPIC = "attached-new";

    @ParameterizedTest(name = "Kafka {0}")
    @ValueSource(strings = {"3.9.2", "4.1.2"})
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void attachMeasuresARunningBrokerAndDetachLeavesItWorking(String version) throws Exception {
        // a 4 s broker session: the restart after the SIGKILL below registers again sooner (see KillRecoveryIT)
        BrokerSpec spec = BrokerSpec.builder(version).name("agent-attach").serverProperty("broker.session.timeout.ms", "4000")
            .serverProperty("broker.heartbeat.interval.ms", "1000").build();
        try (KafkaBroker broker = new LocalKafkaBroker(spec)) {
            broker.start();
            KafkaClients.createTopic(broker, TOPIC, 1, KafkaClients.SMALL_SEGMENTS);
            KafkaClients.produce(broker, TOPIC, 500, 1024);

            int port = FreePorts.next();
            AgentCommand.Result attached = AgentCommand.run(KafkaJdks.defaultJdk(), "attach",
                Long.toString(broker.pid()), "prometheus=127.0.0.1:" + port, "topic.labels=true", "mitigate=hole-repair");
            assertThat(attached.exitCode()).as(attached.output()).isZero();
            assertThat(attached.output()).contains("active: Stallscope").contains("active (attach) in Kafka " + version)
                .contains("instrumented " + KafkaVersion.of(version).agentPoints() + " of " + KafkaVersion.AGENT_POINTS_ALL
                    + " points").contains("hole detection on; hole-repair on");
            // logs created and loaded (Kafka's LogLoader) with the recovery hooks woven in
            KafkaClients.createTopic(broker, NEW_TOPIC, 3, KafkaClients.SMALL_SEGMENTS);
            KafkaClients.produce(broker, NEW_TOPIC, 500, 1024);

            KafkaClients.produce(broker, TOPIC, 3000, 1024);
            assertThat(KafkaClients.consumeAll(broker, TOPIC, true, Duration.ofSeconds(60))).isEqualTo(3500);
            PrometheusScrape metrics = Polling.until(Duration.ofSeconds(30), () -> PrometheusScrape.scrape(port),
                m -> AgentAtStartCheck.missing(m, TOPIC, Map.of("records_append", "request_handler", "log_roll", "request_handler",
                    "segment_read", "request_handler", "transfer_to", "network", "segment_flush", "scheduler")).isEmpty());
            assertThat(AgentAtStartCheck.missing(metrics, TOPIC, Map.of("records_append", "request_handler",
                "log_roll", "request_handler", "segment_read", "request_handler", "transfer_to", "network",
                "segment_flush", "scheduler"))).isEmpty();

            AgentCommand.Result again = AgentCommand.run(KafkaJdks.defaultJdk(), "attach", Long.toString(broker.pid()));
            assertThat(again.output()).contains("unchanged: already active");

            AgentCommand.Result detached = AgentCommand.run(KafkaJdks.defaultJdk(), "detach", Long.toString(broker.pid()));
            assertThat(detached.exitCode()).as(detached.output()).isZero();
            assertThat(detached.output()).contains("detached").contains("restored the original code of");
            assertThatThrownBy(() -> PrometheusScrape.scrape(port)).isInstanceOf(IOException.class);

            // the broker still works, without the agent
            assertThat(broker.isRunning()).isTrue();
            KafkaClients.produce(broker, TOPIC, 1000, 1024);
            assertThat(KafkaClients.consumeAll(broker, TOPIC, true, Duration.ofSeconds(60))).isEqualTo(4500);
            String log = Files.readString(broker.logFile(), StandardCharsets.ISO_8859_1);
            assertThat(log.lines().filter(l -> AgentLogLines.isAgentLine(l) && l.contains("ERROR"))).isEmpty();
            assertThat(log).contains("detached: restored the original code of");

            // an unclean stop and Kafka's own recovery: what the attached agent saw written is all there
            broker.kill();
            broker.start();
            assertThat(KafkaClients.consumeAll(broker, TOPIC, true, Duration.ofSeconds(60))).isEqualTo(4500);
            assertThat(KafkaClients.consumeAll(broker, NEW_TOPIC, true, Duration.ofSeconds(60))).isEqualTo(500);
            String after = Files.readString(broker.logFile(), StandardCharsets.ISO_8859_1);
            assertThat(after).doesNotContain("hole in ").doesNotContain("hole-repair: ");
            // listed, not walked: a walk fails on a checkpoint's .tmp file the running broker renames meanwhile
            List<Path> quarantines = new ArrayList<>();
            try (var dirs = Files.list(broker.dataDir())) {
                for (Path dir : dirs.filter(Files::isDirectory).toList()) {
                    try (var inner = Files.list(dir)) {
                        inner.filter(d -> d.getFileName().toString().startsWith("stallscope-quarantine")).forEach(quarantines::add);
                    } catch (java.nio.file.NoSuchFileException e) {
                        // a partition directory deleted meanwhile
                    }
                }
            }
            assertThat(quarantines).as("quarantine dirs").isEmpty();
        }
    }
}
