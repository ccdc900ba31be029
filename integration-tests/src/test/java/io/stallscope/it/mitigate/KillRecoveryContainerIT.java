package io.stallscope.it.mitigate;

import io.stallscope.it.container.BrokerFactory;
import io.stallscope.it.container.ContainerSuite;
import io.stallscope.it.container.MatrixRecorder;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;

/**
 * {@link KillRecoveryIT} with the broker in a container built here, the agent in KAFKA_OPTS: SIGKILL goes
 * to the container (the engine's kill), the restarted broker is a new container on the same data directory
 * (a host bind mount), as an orchestrator would restart it. Same simulated slow disk (the shim, preloaded
 * inside the container) and the same checks: every acknowledged record there exactly once, in order.
 *
 * <p>One version by default (3.6.2, where both mitigations act): the container adds the engine's kill and a
 * new container on the same directory, which do not change with Kafka's version, and {@link KillRecoveryIT}
 * kills 4.1.2 in a child JVM (3.6.2 too from scripts/beyond-ci) (-Dstallscope.mitigate.kill.container.versions=3.6.2,4.1.2 for more).
 */
@Order(1)
@ExtendWith(ContainerSuite.class)
class KillRecoveryContainerIT extends KillRecoveryIT {
    @RegisterExtension
    static final MatrixRecorder MATRIX = new MatrixRecorder("kill-recovery, mitigations on");

    /** Hides {@link KillRecoveryIT#versions()}: the parameterized test's source, looked up from this class first. */
    static List<String> versions() {
        return List.of(System.getProperty("stallscope.mitigate.kill.container.versions", "3.6.2").split(","));
    }

    @Override
    BrokerFactory brokers() {
        return BrokerFactory.CONTAINER;
    }
}
