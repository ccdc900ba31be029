package io.stallscope.it.realdisk;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real slow disk, made by the kernel: a file system (XFS or ext4) on a loop device over a sparse image
 * file, and a block I/O cgroup that throttles that device for the processes put into it. Nothing is
 * simulated above the block layer: page cache, readahead, the file system's locks and journal are the
 * kernel's own, so a stall shows the kernel's real mechanism (XFS's inode lock behind a cold sendfile,
 * an fsync waiting for its writes) rather than a sleep. Needs root; see {@link #unavailableReason()}.
 *
 * <pre>{@code
 * try (RealDisk disk = RealDisk.create(FsType.XFS, 2L << 30, target)) {
 *     disk.limit(IoLimits.readMiBps(8));
 *     BrokerSpec spec = BrokerSpec.builder("3.9.2").dataDir(disk.mountPoint().resolve("kafka"))
 *         .launchWrapper(disk.launchWrapper()).build();
 * }
 * }</pre>
 *
 * Closing it (or the JVM's exit, or the next harness after a crash: {@link RealDiskReaper}) kills what is
 * still in its cgroup, unmounts, detaches the loop device and deletes the image.
 */
public final class RealDisk implements AutoCloseable {
    private static final AtomicInteger SEQ = new AtomicInteger();

    private final FsType fs;
    private final long sizeBytes;
    private final DiskState state;
    private final Path mountPoint;
    private final String device;
    private final String majMin;
    private final boolean directIo;
    private final BlockIoCgroup cgroup;
    private volatile IoLimits limits = IoLimits.NONE;
    private boolean closed;

    private RealDisk(FsType fs, long sizeBytes, DiskState state, Path mountPoint, String device, String majMin,
                     boolean directIo, BlockIoCgroup cgroup) {
        this.fs = fs;
        this.sizeBytes = sizeBytes;
        this.state = state;
        this.mountPoint = mountPoint;
        this.device = device;
        this.majMin = majMin;
        this.directIo = directIo;
        this.cgroup = cgroup;
    }

    /** Why no real disk can be made on this machine, or empty when one can. */
    public static Optional<String> unavailableReason() {
        List<String> why = new ArrayList<>();
        if (!isRoot()) {
            why.add("not root (loop devices, mount and the cgroup I/O controller need root)");
        }
        for (String tool : List.of("losetup", "mount", "umount", "mkfs.ext4", "mkfs.xfs")) {
            if (!Commands.available(tool)) {
                why.add(tool + " missing" + (tool.equals("mkfs.xfs") ? " (Debian package xfsprogs; scripts/provision.sh installs it)" : ""));
            }
        }
        if (!Files.exists(Path.of("/dev/loop-control"))) {
            why.add("no /dev/loop-control (no loop devices in this kernel or container)");
        }
        StringBuilder cg = new StringBuilder();
        if (BlockIoCgroup.hierarchyRoot(cg).isEmpty()) {
            why.add(cg.toString());
        }
        return why.isEmpty() ? Optional.empty() : Optional.of("no real disk: " + String.join("; ", why));
    }

    private static boolean isRoot() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    return line.split("\\s+")[2].equals("0"); // effective uid
                }
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }

    /**
     * Makes a file system of {@code sizeBytes} on a new loop device over a sparse image in {@code dir}, mounts
     * it under {@code dir}, and a cgroup for it with no limits yet. First undoes what crashed runs left.
     */
    public static RealDisk create(FsType fs, long sizeBytes, Path dir) {
        return make(fs, sizeBytes, null, dir);
    }

    /**
     * Mounts a file system image that already holds one (e.g. a copy of another disk's image, as a power cut
     * left it: {@link PowerCutDisk}) on a new loop device under {@code dir}, without mkfs; the mount replays
     * the file system's journal as after a crash. XFS is mounted with {@code nouuid}, as the copy has the
     * original's UUID. Closing it deletes the image like any other.
     */
    public static RealDisk attach(FsType fs, Path existingImage, Path dir) {
        return make(fs, 0, existingImage, dir);
    }

    private static RealDisk make(FsType fs, long sizeBytes, Path existingImage, Path dir) {
        unavailableReason().ifPresent(why -> {
            throw new IllegalStateException(why);
        });
        RealDiskReaper.reapOrphans().forEach(System.err::println);
        String id = "stallscope-" + ProcessHandle.current().pid() + "-" + SEQ.incrementAndGet();
        Path image;
        try {
            Files.createDirectories(dir);
            image = existingImage != null ? existingImage.toAbsolutePath() : dir.toAbsolutePath().resolve(id + ".img");
            if (existingImage != null) {
                sizeBytes = Files.size(image);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir + ": " + e.getMessage(), e);
        }
        DiskState state = DiskState.create(id, image);
        try {
            if (existingImage == null) {
                try (RandomAccessFile f = new RandomAccessFile(image.toFile(), "rw")) {
                    f.setLength(sizeBytes); // sparse: only what the file system writes takes space
                }
            }
            // Direct I/O on the backing file: no second copy of every page in the host's page cache, so
            // a page evicted from the loop file system is really read from the disk again.
            boolean directIo = existingImage == null;
            String device;
            if (!directIo) {
                // a copy is only read back once: and direct I/O would give the loop device the shelf's 4 KiB
                // sectors, which an XFS made with 512-byte sectors refuses to mount
                device = Commands.run("losetup", "--find", "--show", image.toString());
            } else try {
                device = Commands.run("losetup", "--find", "--show", "--direct-io=on", image.toString());
            } catch (IllegalStateException e) {
                directIo = false; // e.g. an image on tmpfs, which has no O_DIRECT
                device = Commands.run("losetup", "--find", "--show", image.toString());
            }
            state.set("device", device);
            String majMin = Files.readString(Path.of("/sys/block", Path.of(device).getFileName().toString(), "dev")).trim();
            if (existingImage == null) {
                List<String> mkfs = new ArrayList<>();
                mkfs.add(fs.mkfs());
                mkfs.addAll(fs.mkfsOptions());
                mkfs.add(device);
                Commands.run(mkfs.toArray(String[]::new));
            }
            Path mount = dir.toAbsolutePath().resolve(id + ".mnt");
            Files.createDirectories(mount);
            state.set("mount", mount.toString());
            if (existingImage != null && fs == FsType.XFS) {
                // the copy carries the original's UUID, and XFS refuses a second mount of one UUID
                Commands.run("mount", "-t", fs.kernelName(), "-o", "nouuid", device, mount.toString());
            } else {
                Commands.run("mount", "-t", fs.kernelName(), device, mount.toString());
            }
            StringBuilder why = new StringBuilder();
            BlockIoCgroup root = BlockIoCgroup.hierarchyRoot(why).orElseThrow(() -> new IllegalStateException(why.toString()));
            state.set("cgroup", root.dir().resolve(id).toString());
            BlockIoCgroup cgroup = root.create(id);
            RealDisk disk = new RealDisk(fs, sizeBytes, state, mount, device, majMin, directIo, cgroup);
            RealDiskReaper.track(disk);
            return disk;
        } catch (IOException | RuntimeException e) {
            List<String> left = Teardown.undo(state);
            if (left.isEmpty()) {
                state.delete();
            }
            throw new IllegalStateException("cannot make a real " + fs.kernelName() + " disk: " + e.getMessage()
                + (left.isEmpty() ? "" : "; left behind: " + left), e);
        }
    }

    /** Sets the block-layer limits of the device for the processes in this disk's cgroup; takes effect at once. */
    public RealDisk limit(IoLimits limits) {
        cgroup.limit(majMin, limits);
        this.limits = limits;
        return this;
    }

    /**
     * Sets the device's read-ahead. Loop devices here read ahead 8 MiB, so at a throttled rate one cold page fault
     * would pull megabytes; a common disk's is 128 KiB (shared/notes/real-disks.md).
     */
    public RealDisk readAheadKiB(int kib) {
        Commands.run("blockdev", "--setra", Integer.toString(kib * 2), device);
        return this;
    }

    public IoLimits limits() {
        return limits;
    }

    public FsType fsType() {
        return fs;
    }

    public Path mountPoint() {
        return mountPoint;
    }

    /** The image file behind the loop device. */
    public Path image() {
        return Path.of(state.get("image"));
    }

    /** The loop device, e.g. "/dev/loop3". */
    public String device() {
        return device;
    }

    public BlockIoCgroup cgroup() {
        return cgroup;
    }

    /** What the processes in the cgroup read and wrote on this disk's device so far. */
    public BlockIoCgroup.IoStat ioStat() {
        return cgroup.stat(majMin);
    }

    /** Puts a running process (all its threads) into the throttled cgroup. */
    public void admit(long pid) {
        cgroup.admit(pid);
    }

    /**
     * A command prefix that starts a process inside the throttled cgroup from its first instruction:
     * {@code sh -c 'echo $$ > cgroup.procs && exec "$@"' sh COMMAND...} (the pid stays the same).
     */
    public List<String> launchWrapper() {
        String procs = cgroup.dir().resolve("cgroup.procs").toString();
        return List.of("sh", "-c", "echo $$ > '" + procs.replace("'", "'\\''") + "' && exec \"$@\"", "sh");
    }

    /** Which disk a test or benchmark used, for its output, e.g. "real xfs on /dev/loop0 (2.0 GiB loop image, direct I/O), reads 8 MiB/s, cgroup v1 blkio ...". */
    public String describe() {
        return disk() + ", " + limits.describe() + ", " + cgroup.describe();
    }

    /**
     * Which disk a test used when another cgroup throttles it, e.g. a container engine's device limits for a
     * broker in a container: "real xfs on /dev/loop0 (...), reads 8 MiB/s, by podman's device limits".
     */
    public String describe(IoLimits applied, String by) {
        return disk() + ", " + applied.describe() + ", by " + by;
    }

    /** "real xfs on /dev/loop0 (1.0 GiB loop image, direct I/O)". */
    private String disk() {
        return String.format(Locale.ROOT, "real %s on %s (%.1f GiB loop image%s)", fs.kernelName(), device,
            sizeBytes / (double) (1L << 30), directIo ? ", direct I/O" : "");
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        RealDiskReaper.untrack(this);
        List<String> left = Teardown.undo(state);
        if (!left.isEmpty()) {
            // the state file stays, so the next harness tries again
            throw new IllegalStateException("real disk " + device + " not fully removed: " + left);
        }
        state.delete();
    }

    @Override
    public String toString() {
        return describe();
    }
}
