package io.stallscope.it.realdisk;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real disk whose power can be cut, as often as wanted, without stopping what runs on it: {@link #cut()}
 * returns a point-in-time copy of what the block device held at that instant, and {@link #open} mounts such a
 * copy so a broker can recover from it.
 *
 * <p>How: the disk ({@link RealDisk}, XFS or ext4) has its loop image on a second, outer XFS disk (the shelf,
 * made with reflink). A cut is {@code cp --reflink=always} of that image (the FICLONE ioctl): XFS takes the
 * image's I/O lock exclusively and waits for the direct I/O in flight before it shares the extents, so the
 * copy holds exactly the writes the loop device completed before that instant and none after, each whole.
 * The file system's dirty page cache is not in it, as after a power cut; nothing is frozen or flushed.
 * Not simulated: a disk's own volatile write cache (every write the loop device completed counts as on the
 * platter, as on a disk with power-loss protection), and torn sectors inside one write.
 */
public final class PowerCutDisk implements AutoCloseable {
    private final RealDisk shelf;
    private final RealDisk disk;
    private final Path cuts;
    private final AtomicInteger seq = new AtomicInteger();

    private PowerCutDisk(RealDisk shelf, RealDisk disk) {
        this.shelf = shelf;
        this.disk = disk;
        this.cuts = shelf.mountPoint().resolve("cuts");
    }

    /** A {@code fs} disk of {@code sizeBytes} on a shelf under {@code dir} with room for it and its cuts' recoveries. */
    public static PowerCutDisk create(FsType fs, long sizeBytes, Path dir) {
        RealDisk shelf = RealDisk.create(FsType.XFS, 4 * sizeBytes, dir); // xfsprogs 5.1+ make reflink by default
        try {
            return new PowerCutDisk(shelf, RealDisk.create(fs, sizeBytes, shelf.mountPoint().resolve("disk")));
        } catch (RuntimeException e) {
            shelf.close();
            throw e;
        }
    }

    /** The disk the broker runs on. */
    public RealDisk disk() {
        return disk;
    }

    public Path mountPoint() {
        return disk.mountPoint();
    }

    /** The command prefix that puts a process into the disk's cgroup (unthrottled unless limited). */
    public List<String> launchWrapper() {
        return disk.launchWrapper();
    }

    /**
     * Writes everything the disk's file system holds in memory back to the device ({@code sync -f}): what was
     * written before this is in every later cut, as on a disk in use long enough for the kernel's writeback.
     */
    public void sync() {
        Commands.run("sync", "-f", disk.mountPoint().toString());
    }

    /** Cuts the power now: the image of what the device held at this instant, on the shelf. */
    public Path cut() {
        return copy(disk.image());
    }

    /**
     * Cuts the power of a cut that a broker runs on again after its recovery ({@link #open}), so one broker can
     * lose power again and again. Such a copy's loop device writes through the shelf's page cache (no direct
     * I/O, see {@link RealDisk#attach}); the clone writes that page cache back before it shares the extents, so
     * this image too holds exactly the writes the device completed, and none of its own file system's dirty pages.
     */
    public Path cut(RealDisk opened) {
        return copy(opened.image());
    }

    /**
     * A second copy of a cut, made before either is opened: two recoveries of the same instant (one per arm of a
     * paired comparison), each on its own image.
     */
    public Path twin(Path cut) {
        return copy(cut);
    }

    private Path copy(Path image) {
        Path copy = cuts.resolve("cut-" + seq.incrementAndGet() + ".img");
        try {
            Files.createDirectories(cuts);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Commands.run("cp", "--reflink=always", image.toString(), copy.toString());
        return copy;
    }

    /** Mounts a cut (its journal replayed by the mount, as at boot); closing the returned disk deletes the cut. */
    public RealDisk open(Path cut) {
        return RealDisk.attach(disk.fsType(), cut, cuts);
    }

    public String describe() {
        return disk.describe() + ", cut by reflink copies of its image on " + shelf.fsType().kernelName() + " " + shelf.device();
    }

    @Override
    public void close() {
        try {
            disk.close();
        } finally {
            shelf.close();
        }
    }
}
