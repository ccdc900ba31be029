package io.stallscope.it.realdisk;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A cgroup of the kernel's block I/O controller: processes put into it have their I/O to one device
 * throttled at the block layer. cgroup v1 (the {@code blkio} hierarchy, {@code blkio.throttle.*_device}:
 * these machines) or v2 ({@code io.max}). It only ever holds the processes the harness puts there.
 */
public abstract class BlockIoCgroup {
    protected final Path dir;

    protected BlockIoCgroup(Path dir) {
        this.dir = dir;
    }

    /** Where the controller is mounted on this machine, or why there is none. */
    static Optional<BlockIoCgroup> hierarchyRoot(StringBuilder whyNot) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/mounts"))) {
                String[] f = line.split(" ");
                if (f.length >= 4 && f[2].equals("cgroup") && List.of(f[3].split(",")).contains("blkio")) {
                    return Optional.of(new V1(Path.of(f[1])));
                }
            }
            for (String line : Files.readAllLines(Path.of("/proc/mounts"))) {
                String[] f = line.split(" ");
                if (f.length >= 3 && f[2].equals("cgroup2")) {
                    Path root = Path.of(f[1]);
                    Path controllers = root.resolve("cgroup.controllers");
                    if (Files.exists(controllers) && List.of(Files.readString(controllers).trim().split(" ")).contains("io")) {
                        return Optional.of(new V2(root));
                    }
                }
            }
            whyNot.append("no cgroup I/O controller: neither a cgroup v1 'blkio' hierarchy nor a cgroup v2 one with 'io' in /proc/mounts");
        } catch (IOException e) {
            whyNot.append("cannot read /proc/mounts: ").append(e.getMessage());
        }
        return Optional.empty();
    }

    /** Creates the child cgroup {@code name} under this hierarchy's root. */
    abstract BlockIoCgroup create(String name);

    /** Reattaches to an existing child cgroup (the reaper's view of a dead run's cgroup). */
    abstract BlockIoCgroup existing(Path dir);

    /** Sets the limits for the device {@code majMin} ("7:0"); 0 in a field lifts that limit. */
    public abstract void limit(String majMin, IoLimits limits);

    /** "cgroup v1 blkio /sys/fs/cgroup/blkio/NAME" or the v2 equivalent. */
    public abstract String describe();

    public Path dir() {
        return dir;
    }

    /** Moves a process, with all its threads, into this cgroup. Its children started later inherit it. */
    public void admit(long pid) {
        write(dir.resolve("cgroup.procs"), Long.toString(pid));
    }

    /** What the processes in it moved through the throttle to one device, since the cgroup was made. */
    public record IoStat(long readBytes, long writeBytes, long readOps, long writeOps) {
    }

    /** The I/O to the device {@code majMin} counted for this cgroup. */
    public abstract IoStat stat(String majMin);

    /** The processes in it now. */
    public List<Long> pids() {
        List<Long> out = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(dir.resolve("cgroup.procs"))) {
                if (!line.isBlank()) {
                    out.add(Long.parseLong(line.trim()));
                }
            }
        } catch (IOException e) {
            // gone already: nothing in it
        }
        return out;
    }

    /**
     * Kills what is still inside (SIGKILL: a broker left there by a failed test) and removes the cgroup.
     * Returns null, or what could not be done.
     */
    String remove() {
        if (!Files.isDirectory(dir)) {
            return null;
        }
        for (Long pid : pids()) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!pids().isEmpty() && System.nanoTime() < deadline) {
            sleep(50);
        }
        // rmdir can still fail for a moment while the kernel tears the last task down
        for (int i = 0; ; i++) {
            try {
                Files.deleteIfExists(dir);
                return null;
            } catch (IOException e) {
                if (i == 50) {
                    return "cannot remove cgroup " + dir + " (processes " + pids() + "): " + e;
                }
                sleep(100);
            }
        }
    }

    static void write(Path file, String value) {
        try {
            Files.writeString(file, value);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write '" + value + "' to " + file + ": " + e.getMessage(), e);
        }
    }

    private static void sleep(long ms) {
        try {
            TimeUnit.MILLISECONDS.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** cgroup v1: one file per limit, "MAJ:MIN VALUE", where 0 removes the rule. */
    static final class V1 extends BlockIoCgroup {
        V1(Path dir) {
            super(dir);
        }

        @Override
        BlockIoCgroup create(String name) {
            Path child = dir.resolve(name);
            try {
                Files.createDirectory(child);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create cgroup " + child + ": " + e.getMessage(), e);
            }
            return new V1(child);
        }

        @Override
        BlockIoCgroup existing(Path dir) {
            return new V1(dir);
        }

        @Override
        public void limit(String majMin, IoLimits l) {
            write(dir.resolve("blkio.throttle.read_bps_device"), majMin + " " + l.readBps());
            write(dir.resolve("blkio.throttle.write_bps_device"), majMin + " " + l.writeBps());
            write(dir.resolve("blkio.throttle.read_iops_device"), majMin + " " + l.readIops());
            write(dir.resolve("blkio.throttle.write_iops_device"), majMin + " " + l.writeIops());
        }

        @Override
        public String describe() {
            return "cgroup v1 blkio " + dir;
        }

        @Override
        public IoStat stat(String majMin) {
            long[] bytes = readWrite(dir.resolve("blkio.throttle.io_service_bytes"), majMin);
            long[] ops = readWrite(dir.resolve("blkio.throttle.io_serviced"), majMin);
            return new IoStat(bytes[0], bytes[1], ops[0], ops[1]);
        }

        /** The "MAJ:MIN Read N" and "MAJ:MIN Write N" lines of a v1 stat file. */
        private static long[] readWrite(Path file, String majMin) {
            long[] rw = new long[2];
            try {
                for (String line : Files.readAllLines(file)) {
                    String[] f = line.split(" ");
                    if (f.length == 3 && f[0].equals(majMin)) {
                        if (f[1].equals("Read")) rw[0] = Long.parseLong(f[2]);
                        if (f[1].equals("Write")) rw[1] = Long.parseLong(f[2]);
                    }
                }
            } catch (IOException e) {
                // no stats: zeros
            }
            return rw;
        }
    }

    /** cgroup v2: one line in io.max, "MAJ:MIN rbps=N wbps=N riops=N wiops=N", "max" for no limit. */
    static final class V2 extends BlockIoCgroup {
        V2(Path dir) {
            super(dir);
        }

        @Override
        BlockIoCgroup create(String name) {
            // the root must hand the io controller down to its children
            write(dir.resolve("cgroup.subtree_control"), "+io");
            Path child = dir.resolve(name);
            try {
                Files.createDirectory(child);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create cgroup " + child + ": " + e.getMessage(), e);
            }
            return new V2(child);
        }

        @Override
        BlockIoCgroup existing(Path dir) {
            return new V2(dir);
        }

        @Override
        public void limit(String majMin, IoLimits l) {
            write(dir.resolve("io.max"), majMin + " rbps=" + max(l.readBps()) + " wbps=" + max(l.writeBps())
                + " riops=" + max(l.readIops()) + " wiops=" + max(l.writeIops()));
        }

        private static String max(long v) {
            return v == 0 ? "max" : Long.toString(v);
        }

        @Override
        public String describe() {
            return "cgroup v2 io " + dir;
        }

        @Override
        public IoStat stat(String majMin) {
            // "MAJ:MIN rbytes=N wbytes=N rios=N wios=N dbytes=N dios=N"
            try {
                for (String line : Files.readAllLines(dir.resolve("io.stat"))) {
                    if (line.startsWith(majMin + " ")) {
                        java.util.Map<String, Long> v = new java.util.HashMap<>();
                        for (String kv : line.substring(majMin.length() + 1).split(" ")) {
                            String[] p = kv.split("=");
                            v.put(p[0], Long.parseLong(p[1]));
                        }
                        return new IoStat(v.getOrDefault("rbytes", 0L), v.getOrDefault("wbytes", 0L),
                            v.getOrDefault("rios", 0L), v.getOrDefault("wios", 0L));
                    }
                }
            } catch (IOException e) {
                // no stats: zeros
            }
            return new IoStat(0, 0, 0, 0);
        }
    }
}
