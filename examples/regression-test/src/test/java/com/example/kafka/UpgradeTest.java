package com.example.kafka;

import io.stallscope.testcontainers.*;
import org.junit.jupiter.api.Test;
import org.testcontainers.kafka.KafkaContainer;

import java.util.Map;

import static io.stallscope.testcontainers.Op.RECORDS_APPEND;
import static io.stallscope.testcontainers.Role.REQUEST_HANDLER;
import static io.stallscope.testcontainers.StallAssertions.assertThat;
import static java.time.Duration.ofSeconds;

/**
 * Upgrading 3.9.2 to 4.1.2 keeps appends on the request handlers as fast: p99.9 not over 1.5x beyond the
 * bucket error. Both brokers run side by side under the same load, in rounds of at least 5,000 appends each,
 * so what else the machine does hits both alike; noise in one round does not fail the check.
 */
class UpgradeTest {
    @Test
    void appendP999OnRequestHandlersWithin1_5x() throws Exception {
        KafkaContainer current = new KafkaContainer(KafkaImages.apacheKafka("3.9.2"));
        KafkaContainer upgraded = new KafkaContainer(KafkaImages.apacheKafka("4.1.2"));
        try (current; upgraded) {
            AgentOptions appends = AgentOptions.defaults().ops(RECORDS_APPEND);
            AbComparison comparison = AbComparison.of(StallscopeAgent.attach(current, appends),
                    StallscopeAgent.attach(upgraded, appends)).op(RECORDS_APPEND).role(REQUEST_HANDLER).rounds(5);
            current.start();                                                            // one at a time: two JVMs starting
            upgraded.start();                                                           // at once outran the start timeout
            Topics.create(current.getBootstrapServers(), "orders", Map.of());
            Topics.create(upgraded.getBootstrapServers(), "orders", Map.of());
            try (SteadyProducer toCurrent = SteadyProducer.start(current.getBootstrapServers(), "orders", 2000, 512);
                 SteadyProducer toUpgraded = SteadyProducer.start(upgraded.getBootstrapServers(), "orders", 2000, 512)) {
                toCurrent.awaitAcknowledged(4000, ofSeconds(60));                        // warm-up (the JIT), not measured
                toUpgraded.awaitAcknowledged(4000, ofSeconds(60));
                AbResult result = comparison.run(ofSeconds(90));                         // each round: 5,000 appends on both
                System.out.print(result);
                assertThat(result).hasNoRegressionBeyond(1.5);
            }
        }
    }
}
