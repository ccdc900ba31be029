package com.example.kafka;

import io.stallscope.testcontainers.*;
import org.junit.jupiter.api.Test;
import org.testcontainers.kafka.KafkaContainer;

import static io.stallscope.testcontainers.Op.RECORDS_APPEND;
import static io.stallscope.testcontainers.Role.REQUEST_HANDLER;
import static io.stallscope.testcontainers.StallAssertions.assertThat;
import static java.time.Duration.ofSeconds;

/**
 * Upgrading 3.9.2 to 4.1.2 keeps appends on the request handlers as fast: p99.9 within 1.5x. Both brokers run
 * side by side under the same load, so what else the machine does at the time hits both alike.
 */
class UpgradeTest {
    @Test
    void appendP999OnRequestHandlersWithin1_5x() throws Exception {
        KafkaContainer current = new KafkaContainer(KafkaImages.apacheKafka("3.9.2"));
        KafkaContainer upgraded = new KafkaContainer(KafkaImages.apacheKafka("4.1.2"));
        try (current; upgraded) {
            AgentOptions appends = AgentOptions.defaults().ops(RECORDS_APPEND);
            StallscopeAgent currentAgent = StallscopeAgent.attach(current, appends);
            StallscopeAgent upgradedAgent = StallscopeAgent.attach(upgraded, appends);
            current.start();                                                            // one at a time: two JVMs starting
            upgraded.start();                                                           // at once outran the start timeout
            Topics.create(current.getBootstrapServers(), "orders", java.util.Map.of());
            Topics.create(upgraded.getBootstrapServers(), "orders", java.util.Map.of());
            try (SteadyProducer toCurrent = SteadyProducer.start(current.getBootstrapServers(), "orders", 1000, 1024);
                 SteadyProducer toUpgraded = SteadyProducer.start(upgraded.getBootstrapServers(), "orders", 1000, 1024)) {
                toUpgraded.awaitAcknowledged(5000, ofSeconds(60));                       // warm-up (the JIT), not measured
                MetricsSnapshot currentBefore = currentAgent.snapshot(), upgradedBefore = upgradedAgent.snapshot();
                toUpgraded.awaitAcknowledged(10_000, ofSeconds(60));
                StallView was = Stalls.between(currentBefore, currentAgent.snapshot());
                StallView is = Stalls.between(upgradedBefore, upgradedAgent.snapshot());
                assertThat(is).op(RECORDS_APPEND).role(REQUEST_HANDLER).hasCountAtLeast(2_000)
                        .p999().isWithinFactorOf(was.op(RECORDS_APPEND).role(REQUEST_HANDLER).p999(), 1.5);
            }
        }
    }
}
