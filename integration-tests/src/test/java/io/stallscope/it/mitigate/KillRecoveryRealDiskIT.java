package io.stallscope.it.mitigate;

import io.stallscope.it.realdisk.FsType;
import io.stallscope.it.realdisk.IoLimits;
import io.stallscope.it.realdisk.RealDisk;
import io.stallscope.it.realdisk.RealDiskRequirement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.nio.file.Path;

/**
 * {@link KillRecoveryIT} on a real disk: the broker's log dir on XFS on a loop device (the real-disk harness),
 * its reads throttled to 25 MiB/s by the cgroup I/O controller, so prefetch maps and advises real XFS
 * segments, rolled and active, while the broker is killed. No shim. Needs root (it skips with the reason, and
 * fails under CI=true, as every real-disk test); about 3 minutes for the two default versions, so it runs on
 * request: -Dstallscope.realdisk.kill=true (docs/lab/prefetch-outside-locks.md has the command).
 */
@EnabledIfSystemProperty(named = "stallscope.realdisk.kill", matches = "true")
class KillRecoveryRealDiskIT extends KillRecoveryIT {
    private static final Path DIR = Path.of(System.getProperty("stallscope.it.target", "target"), "realdisk").toAbsolutePath();

    private RealDisk disk;

    @BeforeEach
    void realDisk() {
        RealDiskRequirement.assumeAvailable();
        disk = RealDisk.create(FsType.XFS, 1L << 30, DIR).limit(IoLimits.readMiBps(25));
        System.out.println("disk: " + disk.describe());
    }

    @AfterEach
    void closeDisk() {
        if (disk != null) {
            disk.close(); // kills what is left in its cgroup, unmounts, detaches the loop device
        }
    }

    @Override
    MitigatedBroker mitigatedBroker(String version, Path tmp) {
        return new MitigatedBroker(version, "kills-xfs", agentOptions(),
            b -> b.dataDir(disk.mountPoint().resolve("kafka")).launchWrapper(disk.launchWrapper()));
    }

    @Override
    String diskName() {
        return disk.describe();
    }
}
