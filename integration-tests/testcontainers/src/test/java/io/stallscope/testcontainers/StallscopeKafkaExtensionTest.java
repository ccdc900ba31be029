package io.stallscope.testcontainers;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static io.stallscope.testcontainers.Op.RECORDS_APPEND;
import static io.stallscope.testcontainers.Role.REQUEST_HANDLER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The extension's life cycle driven by hand (the image is only known once the engine check passed, after
 * a static @RegisterExtension field would have been built): a broker with the agent between beforeAll
 * and afterAll.
 */
@Timeout(300)
class StallscopeKafkaExtensionTest {

    @BeforeAll
    static void engine() {
        ContainerEngine.require();
    }

    @Test
    void startsOneBrokerWithTheAgentAndStopsIt() throws Exception {
        StallscopeKafkaExtension extension = StallscopeKafkaExtension.of(ApacheKafkaLikeImage.of(ContainerEngine.VERSION))
                .withAgent(AgentOptions.defaults().ops(RECORDS_APPEND));
        assertThatThrownBy(extension::agent).hasMessageContaining("@RegisterExtension");
        extension.beforeAll(null);
        try {
            MetricsSnapshot before = extension.agent().snapshot();
            AttachContainerTest.produce(extension.bootstrapServers(), "extension", 500);
            StallAssertions.assertThat(Stalls.between(before, extension.agent().snapshot()))
                    .op(RECORDS_APPEND).role(REQUEST_HANDLER).hasCountAtLeast(1);
            assertThat(extension.agent().container().getEnvMap().get("KAFKA_OPTS")).contains("ops=records_append");
        } finally {
            extension.afterAll(null);
        }
        assertThat(extension.agent().container().isRunning()).isFalse();
    }
}
