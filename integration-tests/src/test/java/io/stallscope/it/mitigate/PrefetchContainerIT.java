package io.stallscope.it.mitigate;

import io.stallscope.it.container.BrokerFactory;
import io.stallscope.it.container.ContainerSuite;
import io.stallscope.it.container.MatrixRecorder;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link PrefetchIT} with the broker in a container built here: the shim runs inside the container (its
 * log on a host mount names the container's thread ids, which {@code jcmd Thread.print} from the host
 * reports too, as it attaches through the container's pid namespace); page-cache eviction and residency
 * are asked of the one kernel from the host.
 */
@Order(2)
@ExtendWith(ContainerSuite.class)
class PrefetchContainerIT extends PrefetchIT {
    @RegisterExtension
    static final MatrixRecorder MATRIX = new MatrixRecorder("prefetch, cold reads on the shim");

    @Override
    BrokerFactory brokers() {
        return BrokerFactory.CONTAINER;
    }
}
