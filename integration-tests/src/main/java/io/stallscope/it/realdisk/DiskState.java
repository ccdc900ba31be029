package io.stallscope.it.realdisk;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.Optional;
import java.util.Properties;

/**
 * What one real disk holds of the machine (image, loop device, mount, cgroup) and which process owns it,
 * written down before each is made: a test JVM that dies without its shutdown hook (SIGKILL, a forked
 * JVM timeout) leaves the file, and the next harness that starts finds and undoes what it lists.
 */
final class DiskState {
    /** Machine-wide, so that any later run finds what a crashed one left; /run goes with a reboot, as loops and mounts do. */
    static Path directory() {
        Path run = Path.of(System.getProperty("stallscope.realdisk.state", "/run/stallscope-realdisk"));
        try {
            Files.createDirectories(run);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + run + " for the real disks' state: " + e.getMessage(), e);
        }
        return run;
    }

    final Path file;
    final Properties p;

    private DiskState(Path file, Properties p) {
        this.file = file;
        this.p = p;
    }

    /** A new state file for a disk this JVM is making. */
    static DiskState create(String id, Path image) {
        Properties p = new Properties();
        ProcessHandle self = ProcessHandle.current();
        p.setProperty("owner.pid", Long.toString(self.pid()));
        self.info().startInstant().ifPresent(t -> p.setProperty("owner.start", t.toString()));
        p.setProperty("image", image.toString());
        DiskState s = new DiskState(directory().resolve(id + ".state"), p);
        s.save();
        return s;
    }

    static Optional<DiskState> read(Path file) {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
            return Optional.of(new DiskState(file, p));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    void set(String key, String value) {
        p.setProperty(key, value);
        save();
    }

    String get(String key) {
        return p.getProperty(key);
    }

    /** Whether the JVM that made this disk is still running (the same process, not a reused pid). */
    boolean ownerAlive() {
        long pid = Long.parseLong(p.getProperty("owner.pid", "-1"));
        Optional<ProcessHandle> h = ProcessHandle.of(pid);
        if (h.isEmpty() || !h.get().isAlive()) {
            return false;
        }
        String start = p.getProperty("owner.start");
        Optional<Instant> actual = h.get().info().startInstant();
        return start == null || actual.isEmpty() || Instant.parse(start).equals(actual.get());
    }

    void delete() {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // the next reaper tries again; nothing it lists exists any more
        }
    }

    private void save() {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
            p.store(w, "a Stallscope real disk: see io.stallscope.it.realdisk.RealDisk");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + tmp + ": " + e.getMessage(), e);
        }
        try {
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }
}
