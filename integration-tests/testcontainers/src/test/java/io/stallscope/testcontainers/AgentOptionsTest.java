package io.stallscope.testcontainers;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AgentOptionsTest {

    @Test
    void typedOptionsBecomeTheAgentsArgument() {
        String args = AgentOptions.defaults().ops(Op.RECORDS_APPEND, Op.LOG_ROLL).topicLabels(true)
                .mitigate(Mitigation.ROLL_FLUSH).profile(true).slowThreshold(Duration.ofMillis(20))
                .metricsPort(9500).agentArgs();
        assertThat(args).isEqualTo("prometheus=0.0.0.0:9500,strict=true,ops=records_append,log_roll,topic.labels=true,"
                + "mitigate=roll-flush,profile=on,profile.dir=/tmp/stallscope-captures,slow.threshold=20000us");
    }

    @Test
    void badOptionsFailAtOnceNamingTheOption() {
        AgentOptions o = AgentOptions.defaults();
        assertThatThrownBy(() -> o.metricsPort(0)).hasMessage("metricsPort must be 1 to 65535, not 0");
        assertThatThrownBy(o::ops).hasMessageStartingWith("ops: name at least one Op");
        assertThatThrownBy(() -> o.slowThreshold(Duration.ZERO)).hasMessage("slowThreshold must be positive, not PT0S");
        assertThatThrownBy(() -> o.slowThreshold(Duration.ofNanos(1500))).hasMessageStartingWith("slowThreshold must be whole microseconds");
        assertThatThrownBy(() -> o.profileTrigger(Duration.ofHours(2))).hasMessage("profileTrigger must be 1ms to 1h, not PT2H");
    }
}
