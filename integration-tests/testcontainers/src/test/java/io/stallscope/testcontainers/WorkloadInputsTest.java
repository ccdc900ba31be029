package io.stallscope.testcontainers;

import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Bad inputs to the workloads, conditions and evidence fail at once, naming what to fix (no container needed). */
class WorkloadInputsTest {
    @Test
    void blockIoLimitsNeedAnExistingBlockDeviceAndALimit() {
        assertThatThrownBy(() -> BlockIoLimits.on("/dev/no-such-disk")).hasMessageContaining("no block device /dev/no-such-disk")
                .hasMessageContaining("findmnt");
        assertThatThrownBy(() -> BlockIoLimits.on("/proc/self/status")).hasMessageContaining("is not a block device");
        assertThatThrownBy(() -> BlockIoLimits.on("/dev/null")).hasMessageContaining("is not a block device");
    }

    @Test
    void workloadsRefuseImpossibleSizes() {
        assertThatThrownBy(() -> SteadyProducer.start("127.0.0.1:1", "t", 0, 1024)).hasMessage("recordsPerSecond must be 1 to 1000000, not 0");
        assertThatThrownBy(() -> SteadyProducer.start("127.0.0.1:1", "t", 10, -1)).hasMessage("recordBytes must be 0 or more, not -1");
        assertThatThrownBy(() -> Topics.createRollingEvery("127.0.0.1:1", "t", 4096)).hasMessageContaining("at least 1048576");
        assertThatThrownBy(() -> Backlog.write("127.0.0.1:1", "t", 10)).hasMessageContaining("at least 1024");
    }

    @Test
    void aMissingContainerIsNamed() {
        assertThatThrownBy(() -> StallscopeAgent.attach(null)).hasMessageContaining("container is null")
                .hasMessageContaining("before start()");
    }

    @Test
    void evictionAndCapturesNameWhatIsMissing() {
        GenericContainer<?> c = new GenericContainer<>("localhost/not-started:1");
        assertThatThrownBy(() -> PageCacheEviction.evictSegments(c, "data/orders-0")).hasMessageContaining("absolute path");
        StallscopeAgent agent = StallscopeAgent.attach(c, AgentOptions.defaults());
        assertThatThrownBy(() -> AgentCaptures.copy(agent, Path.of("target")))
                .hasMessageContaining("AgentOptions.profile(true)");
        assertThat(AgentOptions.defaults().profile(true).agentArgs()).contains("profile.dir=" + AgentCaptures.DIR);
    }
}
