package io.stallscope.it.mitigate;

import io.stallscope.it.agent.AgentJar;
import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.FreePorts;
import io.stallscope.it.slowdisk.SlowDisk;

import java.util.function.Consumer;


/** A broker spec with the agent (as deployed: the shaded jar) and a simulated slow disk (null: none, e.g. on a real disk). */
final class MitigatedBroker {
    final int prometheusPort = FreePorts.next();
    final BrokerSpec spec;

    MitigatedBroker(String version, String name, String agentOptions, SlowDisk disk) {
        this(version, name, agentOptions, b -> {
            if (disk != null) {
                disk.applyTo(b);
            }
        });
    }

    /** With the disk set by the caller, e.g. a real file system's data dir and cgroup. */
    MitigatedBroker(String version, String name, String agentOptions, Consumer<BrokerSpec.Builder> disk) {
        BrokerSpec.Builder b = BrokerSpec.builder(version).name(name)
            .javaAgent(AgentJar.path(), "prometheus=127.0.0.1:" + prometheusPort
                + (agentOptions.isEmpty() ? "" : "," + agentOptions));
        disk.accept(b);
        this.spec = b.build();
    }
}
