package io.stallscope.it.mitigate;

import io.stallscope.it.container.BrokerFactory;
import io.stallscope.it.container.ContainerSuite;
import io.stallscope.it.container.MatrixRecorder;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link KillRecoveryIT} with the broker in a container built here, the agent in KAFKA_OPTS: SIGKILL goes
 * to the container (the engine's kill), the restarted broker is a new container on the same data directory
 * (a host bind mount), as an orchestrator would restart it. Same simulated slow disk (the shim, preloaded
 * inside the container) and the same checks: every acknowledged record there exactly once, in order.
 */
@Order(1)
@ExtendWith(ContainerSuite.class)
class KillRecoveryContainerIT extends KillRecoveryIT {
    @RegisterExtension
    static final MatrixRecorder MATRIX = new MatrixRecorder("kill-recovery, mitigations on");

    @Override
    BrokerFactory brokers() {
        return BrokerFactory.CONTAINER;
    }
}
