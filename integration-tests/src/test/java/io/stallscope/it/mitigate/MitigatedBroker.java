package io.stallscope.it.mitigate;

import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.FreePorts;
import io.stallscope.it.slowdisk.SlowDisk;

import java.nio.file.Files;
import java.nio.file.Path;

/** A broker spec with the agent (as deployed: the shaded jar) and a simulated slow disk. */
final class MitigatedBroker {
    final int prometheusPort = FreePorts.next();
    final BrokerSpec spec;

    MitigatedBroker(String version, String name, String agentOptions, SlowDisk disk) {
        BrokerSpec.Builder b = BrokerSpec.builder(version).name(name)
            .javaAgent(agentJar(), "prometheus=127.0.0.1:" + prometheusPort
                + (agentOptions.isEmpty() ? "" : "," + agentOptions));
        disk.applyTo(b);
        this.spec = b.build();
    }

    static Path agentJar() {
        Path jar = Path.of(System.getProperty("stallscope.agent.jar", "../agent/target/stallscope-agent.jar"))
            .toAbsolutePath().normalize();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("no agent jar at " + jar + ": build the agent module first (mvn package)");
        }
        return jar;
    }
}
