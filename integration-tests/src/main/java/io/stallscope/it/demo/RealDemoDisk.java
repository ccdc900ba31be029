package io.stallscope.it.demo;

import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.realdisk.BlockIoCgroup;
import io.stallscope.it.realdisk.FsType;
import io.stallscope.it.realdisk.IoLimits;
import io.stallscope.it.realdisk.RealDisk;

import java.nio.file.Path;
import java.util.Locale;

/**
 * A real slow disk for the demo's broker (root): XFS on a loop device, throttled by the kernel's block
 * layer for the broker's process alone. Writes at {@value #WRITE_IOPS} IOPS make each fsync wait for its own
 * writes (about 100 ms for a snapshot, as the simulated disk's fixed delay); cold reads at
 * {@value #READ_MIB_PER_SECOND} MiB/s are about the simulated disk's busy-disk rate. The broker's KRaft
 * metadata log stays off it, on the work directory: it fsyncs every batch, and the demo is about the data.
 */
final class RealDemoDisk implements DemoDisk {
    static final int WRITE_IOPS = 20;
    static final int READ_MIB_PER_SECOND = 25;

    private final RealDisk disk;
    private final Path metadataDir;

    RealDemoDisk(Path runDir) {
        this.disk = RealDisk.create(FsType.XFS, 2L << 30, runDir.resolve("disk"))
            .limit(IoLimits.readMiBps(READ_MIB_PER_SECOND).withWriteIops(WRITE_IOPS));
        this.metadataDir = runDir.resolve("broker").resolve("metadata");
    }

    static String describe() {
        return String.format(Locale.ROOT, "real slow disk (root): XFS on a loop device, throttled by the kernel's block layer"
            + " (cgroup I/O controller) for the broker alone: writes at %d IOPS, so an fsync waits for its own writes (about"
            + " 100 ms for a snapshot), cold reads at %d MiB/s; the backlog's rolled segments are evicted from the page cache"
            + " before the catch-up; the broker's KRaft metadata log is kept off it", WRITE_IOPS, READ_MIB_PER_SECOND);
    }

    @Override
    public void applyTo(BrokerSpec.Builder spec) {
        spec.dataDir(disk.mountPoint().resolve("kafka")).launchWrapper(disk.launchWrapper())
            .serverProperty("metadata.log.dir", metadataDir.toString());
    }

    @Override
    public String summary() {
        BlockIoCgroup.IoStat s = disk.ioStat();
        return String.format(Locale.ROOT, "%s; the broker read %.0f MiB in %d reads and wrote %.0f MiB in %d writes through the throttle",
            disk.describe(), s.readBytes() / 1048576.0, s.readOps(), s.writeBytes() / 1048576.0, s.writeOps());
    }

    @Override
    public void unthrottle() {
        try {
            disk.limit(IoLimits.NONE);
        } catch (RuntimeException e) {
            // best effort: e.g. Ctrl-C closing a run's disk a second time; the stop is only slower without it
        }
    }

    @Override
    public String record() {
        return null;
    }

    @Override
    public void close() {
        disk.close();
    }
}
