package io.stallscope.testcontainers;

import com.github.dockerjava.api.model.BlkioRateDevice;
import com.github.dockerjava.api.model.HostConfig;
import org.testcontainers.containers.GenericContainer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * A slow disk for one container: the engine's own per-container block I/O limits on one host block device
 * ({@code --device-read-bps}, {@code --device-write-bps}, {@code --device-read-iops}, {@code --device-write-iops}),
 * which the kernel applies in the container's cgroup. Bind-mount a volume on that device (a loop-backed XFS
 * or ext4 file system, say) as the broker's log dir, and the broker's reads of it are throttled. Under
 * cgroup v1 only direct and read I/O is throttled reliably: buffered writes are written back outside the
 * container's cgroup. Immutable; {@link #applyTo} before the container starts.
 */
public final class BlockIoLimits {
    private final String device;
    private final long readBps;
    private final long writeBps;
    private final long readIops;
    private final long writeIops;

    private BlockIoLimits(String device, long readBps, long writeBps, long readIops, long writeIops) {
        this.device = device;
        this.readBps = readBps;
        this.writeBps = writeBps;
        this.readIops = readIops;
        this.writeIops = writeIops;
    }

    /** No limits yet on this host block device (e.g. {@code /dev/loop7}); it must exist and be a block device. */
    public static BlockIoLimits on(String device) {
        Objects.requireNonNull(device, "device");
        Path p = Path.of(device);
        if (!Files.exists(p)) {
            throw new IllegalArgumentException("no block device " + device + " on this host: name the device the volume is on"
                    + " (findmnt -no SOURCE --target DIR)");
        }
        if (!isBlockDevice(p)) {
            throw new IllegalArgumentException(device + " is not a block device: the engine limits I/O per block device"
                    + " (a /dev/sdX, /dev/nvme0n1 or /dev/loopN), not per file or directory");
        }
        return new BlockIoLimits(device, 0, 0, 0, 0);
    }

    public BlockIoLimits readBytesPerSecond(long bps) {
        return new BlockIoLimits(device, positive("readBytesPerSecond", bps), writeBps, readIops, writeIops);
    }

    public BlockIoLimits writeBytesPerSecond(long bps) {
        return new BlockIoLimits(device, readBps, positive("writeBytesPerSecond", bps), readIops, writeIops);
    }

    public BlockIoLimits readIops(long iops) {
        return new BlockIoLimits(device, readBps, writeBps, positive("readIops", iops), writeIops);
    }

    public BlockIoLimits writeIops(long iops) {
        return new BlockIoLimits(device, readBps, writeBps, readIops, positive("writeIops", iops));
    }

    public String device() {
        return device;
    }

    /** Sets the limits in the container's host config when it is created; fails if it has started. */
    public <C extends GenericContainer<?>> C applyTo(C container) {
        if (container.getContainerId() != null) {
            throw new IllegalStateException("container " + container.getDockerImageName() + " has started already: set its"
                    + " block I/O limits before start()");
        }
        if (readBps == 0 && writeBps == 0 && readIops == 0 && writeIops == 0) {
            throw new IllegalStateException("no limit set on " + device + ": call readBytesPerSecond, writeBytesPerSecond,"
                    + " readIops or writeIops");
        }
        container.withCreateContainerCmdModifier(cmd -> {
            HostConfig host = cmd.getHostConfig() != null ? cmd.getHostConfig() : HostConfig.newHostConfig();
            if (readBps > 0) {
                host.withBlkioDeviceReadBps(rate(readBps));
            }
            if (writeBps > 0) {
                host.withBlkioDeviceWriteBps(rate(writeBps));
            }
            if (readIops > 0) {
                host.withBlkioDeviceReadIOps(rate(readIops));
            }
            if (writeIops > 0) {
                host.withBlkioDeviceWriteIOps(rate(writeIops));
            }
            cmd.withHostConfig(host);
        });
        return container;
    }

    @Override
    public String toString() {
        return device + " read " + readBps + " B/s, write " + writeBps + " B/s, read " + readIops + " IOPS, write "
                + writeIops + " IOPS (0: no limit)";
    }

    private List<BlkioRateDevice> rate(long rate) {
        return List.of(new BlkioRateDevice().withPath(device).withRate(rate));
    }

    private static long positive(String name, long v) {
        if (v < 1) {
            throw new IllegalArgumentException(name + " must be positive, not " + v);
        }
        return v;
    }

    private static boolean isBlockDevice(Path p) {
        try {
            Object mode = Files.getAttribute(p, "unix:mode");
            // S_IFBLK
            return mode instanceof Integer && (((Integer) mode) & 0170000) == 0060000;
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }
}
