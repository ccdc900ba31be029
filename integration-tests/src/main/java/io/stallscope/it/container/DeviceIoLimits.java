package io.stallscope.it.container;

import com.github.dockerjava.api.model.BlkioRateDevice;
import com.github.dockerjava.api.model.HostConfig;
import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.realdisk.IoLimits;
import org.testcontainers.containers.GenericContainer;

import java.util.List;

/**
 * A broker container's block I/O limits on one device, set by the engine in the container's own cgroup
 * (what {@code --device-read-bps}, {@code --device-write-iops} and the like do), so the kernel throttles the
 * broker as it throttles a child JVM in a real disk's cgroup.
 */
final class DeviceIoLimits {
    private DeviceIoLimits() {
    }

    static void apply(BrokerSpec.DeviceLimits d, GenericContainer<?> container) {
        container.withCreateContainerCmdModifier(cmd -> {
            HostConfig host = cmd.getHostConfig() != null ? cmd.getHostConfig() : HostConfig.newHostConfig();
            cmd.withHostConfig(apply(d, host));
        });
    }

    static HostConfig apply(BrokerSpec.DeviceLimits d, HostConfig host) {
        IoLimits l = d.limits();
        if (l.readBps() > 0) {
            host.withBlkioDeviceReadBps(rate(d.device(), l.readBps()));
        }
        if (l.writeBps() > 0) {
            host.withBlkioDeviceWriteBps(rate(d.device(), l.writeBps()));
        }
        if (l.readIops() > 0) {
            host.withBlkioDeviceReadIOps(rate(d.device(), l.readIops()));
        }
        if (l.writeIops() > 0) {
            host.withBlkioDeviceWriteIOps(rate(d.device(), l.writeIops()));
        }
        return host;
    }

    private static List<BlkioRateDevice> rate(String device, long rate) {
        return List.of(new BlkioRateDevice().withPath(device).withRate(rate));
    }
}
