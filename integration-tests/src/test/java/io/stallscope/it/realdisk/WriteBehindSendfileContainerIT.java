package io.stallscope.it.realdisk;

import io.stallscope.it.container.ContainerSuite;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link WriteBehindSendfileIT}'s XFS case with the broker in a container built here: its log dir on the real
 * XFS loop device, bind-mounted, and its cold reads throttled by the container engine's own per-container
 * device limits (what {@code --device-read-bps} sets) instead of the harness's cgroup. The stall must come out
 * the same, since it is the kernel's: the request handlers' write(2) blocks behind the network thread's cold
 * sendfile of the active segment.
 */
@ExtendWith(ContainerSuite.class)
class WriteBehindSendfileContainerIT {
    private static final Path DIR = Path.of(System.getProperty("stallscope.it.target", "target"), "line-container").toAbsolutePath();

    @BeforeEach
    void requireRealDisk() {
        RealDiskRequirement.assumeAvailable();
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void inAContainerOnXfsTheHandlersWriteWaitsForTheColdSendfile() throws Exception {
        LineScenario.Result r = LineScenario.run(LineScenario.Options.defaults(FsType.XFS).withNetworkThreads(3).inContainer(),
            DIR.resolve("xfs"));
        WriteBehindSendfileIT.assertHandlersBlocked(r);
        assertThat(r.appendP999Handlers()).as("agent records_append p99.9 on request handlers, ms; " + r.summary())
            .isGreaterThanOrEqualTo(100);
    }
}
