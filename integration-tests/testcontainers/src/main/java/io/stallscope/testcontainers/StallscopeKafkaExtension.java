package io.stallscope.testcontainers;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.utility.DockerImageName;

import java.util.Objects;

/**
 * One Kafka broker with the agent per test class: Testcontainers' {@link KafkaContainer} of the image given,
 * started before the class's first test and stopped after its last. Tests take {@link StallscopeAgent} or
 * {@link KafkaContainer} as parameters.
 * <pre>
 * &#64;RegisterExtension
 * static StallscopeKafkaExtension kafka = StallscopeKafkaExtension.of("apache/kafka:3.9.2")
 *         .withAgent(AgentOptions.defaults().topicLabels(true));
 * </pre>
 * Register it as a static field: one broker serves the whole class.
 */
public final class StallscopeKafkaExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver {
    private final DockerImageName image;
    private final AgentOptions options;
    private KafkaContainer container;
    private StallscopeAgent agent;

    private StallscopeKafkaExtension(DockerImageName image, AgentOptions options) {
        this.image = image;
        this.options = options;
    }

    /** An apache/kafka or apache/kafka-native image (or one declared a compatible substitute for it). */
    public static StallscopeKafkaExtension of(String image) {
        return of(DockerImageName.parse(image));
    }

    public static StallscopeKafkaExtension of(DockerImageName image) {
        return new StallscopeKafkaExtension(Objects.requireNonNull(image, "image"), AgentOptions.defaults());
    }

    public StallscopeKafkaExtension withAgent(AgentOptions options) {
        return new StallscopeKafkaExtension(image, Objects.requireNonNull(options, "options"));
    }

    public StallscopeAgent agent() {
        if (agent == null) {
            throw new IllegalStateException("the broker of " + image + " starts before the class's first test:"
                    + " register the extension on a static field with @RegisterExtension");
        }
        return agent;
    }

    public String bootstrapServers() {
        agent();
        return container.getBootstrapServers();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        container = new KafkaContainer(image);
        agent = StallscopeAgent.attach(container, options);
        container.start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (container != null) {
            container.stop();
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext p, ExtensionContext e) {
        Class<?> type = p.getParameter().getType();
        return type == StallscopeAgent.class || type == KafkaContainer.class;
    }

    @Override
    public Object resolveParameter(ParameterContext p, ExtensionContext e) {
        if (agent == null) {
            throw new ParameterResolutionException("no broker: register StallscopeKafkaExtension on a static field");
        }
        return p.getParameter().getType() == StallscopeAgent.class ? agent : container;
    }
}
