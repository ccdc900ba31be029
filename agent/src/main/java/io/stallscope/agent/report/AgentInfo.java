package io.stallscope.agent.report;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

/**
 * {@code stallscope_agent_info{...} 1}: that the agent is active in this broker, and what it does there, as
 * labels an alert or a dashboard can join on (the start-up line says the same in the broker's log).
 */
public final class AgentInfo {
    public static final String NAME = "stallscope.agent.info";

    private AgentInfo() {
    }

    /**
     * @param points      instrumented points, "13/14"
     * @param mitigations the mitigations asked for, comma-separated, or "none"
     */
    public static void register(MeterRegistry registry, String version, String kafka, String jdk, String mode,
                                String points, String mitigations, boolean profile, boolean topicLabels) {
        Tags tags = Tags.of("version", version, "kafka", kafka, "jdk", jdk, "mode", mode)
            .and("points", points, "mitigations", mitigations)
            .and("profile", profile ? "on" : "off", "topic_labels", Boolean.toString(topicLabels));
        Gauge.builder(NAME, () -> 1).tags(tags)
            .description("The Stallscope agent is active: its version, the Kafka and JDK, the points instrumented, "
                + "the mitigations asked for")
            .register(registry);
    }
}
