package com.example.kafka;

import io.stallscope.testcontainers.*;
import org.junit.jupiter.api.Test;
import org.testcontainers.kafka.KafkaContainer;

import static io.stallscope.testcontainers.Op.RECORDS_APPEND;
import static io.stallscope.testcontainers.Role.REQUEST_HANDLER;
import static io.stallscope.testcontainers.StallAssertions.assertThat;
import static java.time.Duration.ofSeconds;

/** Upgrading 3.9.2 to 4.1.2 keeps appends on the request handlers as fast: p99.9 within 1.5x. */
class UpgradeTest {
    @Test
    void appendP999OnRequestHandlersWithin1_5x() throws Exception {
        StallView current = steadyLoadOn("3.9.2");
        StallView upgraded = steadyLoadOn("4.1.2");
        assertThat(upgraded).op(RECORDS_APPEND).role(REQUEST_HANDLER).hasCountAtLeast(5_000)
                .p999().isWithinFactorOf(current.op(RECORDS_APPEND).role(REQUEST_HANDLER).p999(), 1.5);
    }

    private static StallView steadyLoadOn(String version) throws Exception {
        try (KafkaContainer kafka = new KafkaContainer(KafkaImages.apacheKafka(version))) {
            StallscopeAgent agent = StallscopeAgent.attach(kafka, AgentOptions.defaults().ops(RECORDS_APPEND));
            kafka.start();
            Topics.create(kafka.getBootstrapServers(), "orders", java.util.Map.of());
            try (SteadyProducer producer = SteadyProducer.start(kafka.getBootstrapServers(), "orders", 1000, 1024)) {
                producer.awaitAcknowledged(2000, ofSeconds(60));                         // warm-up, not measured
                MetricsSnapshot before = agent.snapshot();
                producer.awaitAcknowledged(10_000, ofSeconds(60));
                return Stalls.between(before, agent.snapshot());
            }
        }
    }
}
