package io.stallscope.it.agent;

import io.stallscope.it.broker.PrometheusScrape;
import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.FreePorts;
import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.KafkaJdks;
import io.stallscope.it.broker.LocalKafkaBroker;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * During an incident: attach to a broker that is already running, see its stalls, detach again,
 * and the broker keeps serving as before.
 */
class AgentAttachIT {
    private static final String TOPIC = "attached";

    @ParameterizedTest(name = "Kafka {0}")
    @ValueSource(strings = {"3.9.2", "4.1.2"})
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void attachMeasuresARunningBrokerAndDetachLeavesItWorking(String version) throws Exception {
        BrokerSpec spec = BrokerSpec.builder(version).name("agent-attach").build();
        try (KafkaBroker broker = new LocalKafkaBroker(spec)) {
            broker.start();
            KafkaClients.createTopic(broker, TOPIC, 1, KafkaClients.SMALL_SEGMENTS);
            KafkaClients.produce(broker, TOPIC, 500, 1024);

            int port = FreePorts.next();
            AgentCommand.Result attached = AgentCommand.run(KafkaJdks.defaultJdk(), "attach",
                Long.toString(broker.pid()), "prometheus=127.0.0.1:" + port, "topic.labels=true");
            assertThat(attached.exitCode()).as(attached.output()).isZero();
            assertThat(attached.output()).contains("active: Stallscope").contains("active (attach) in Kafka " + version)
                .contains("instrumented 13 of 13 points");

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
        }
    }
}
