package io.stallscope.it.mitigate;

import io.stallscope.it.agent.AgentJar;
import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.FreePorts;
import io.stallscope.it.slowdisk.SlowDisk;


/** A broker spec with the agent (as deployed: the shaded jar) and a simulated slow disk (null: none, e.g. on a real disk). */
final class MitigatedBroker {
    final int prometheusPort = FreePorts.next();
    final BrokerSpec spec;

    MitigatedBroker(String version, String name, String agentOptions, SlowDisk disk) {
        BrokerSpec.Builder b = BrokerSpec.builder(version).name(name)
            .javaAgent(AgentJar.path(), "prometheus=127.0.0.1:" + prometheusPort
                + (agentOptions.isEmpty() ? "" : "," + agentOptions));
        if (disk != null) {
            disk.applyTo(b);
        }
        this.spec = b.build();
    }
}
