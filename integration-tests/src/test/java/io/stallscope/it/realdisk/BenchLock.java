package io.stallscope.it.realdisk;

import io.stallscope.it.bench.LoadAverage;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * A shared machine's benchmark lock, taken by a benchmark phase by phase: shared while it prepares (others may
 * build, nobody may time), exclusive only while it times. The lock is flock(1) on the file named by
 * {@code -Dstallscope.bench.lock}, the same lock the machine's users take with {@code flock -s/-x FILE CMD}; Java's
 * own file locks are fcntl locks, which flock(1) does not see, so a child {@code flock} holds it until its stdin
 * closes (also when this JVM dies). Without the property it does nothing: whoever ran the benchmark holds a lock.
 */
final class BenchLock {
    private final Path file;

    private BenchLock(Path file) {
        this.file = file;
    }

    static BenchLock fromProperty() {
        String name = System.getProperty("stallscope.bench.lock", "");
        return new BenchLock(name.isBlank() ? null : Path.of(name));
    }

    /** For preparation: waits while anyone times. */
    AutoCloseable shared(String what) {
        return take("-s", what);
    }

    /** For the timed part: waits until nobody else holds the lock. */
    AutoCloseable exclusive(String what) {
        return take("-x", what);
    }

    private AutoCloseable take(String mode, String what) {
        if (file == null) {
            return () -> { };
        }
        long t0 = System.nanoTime();
        Process holder;
        try {
            holder = new ProcessBuilder("flock", mode, file.toString(), "sh", "-c", "echo locked; exec cat")
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            String line = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8)).readLine();
            if (!"locked".equals(line)) {
                holder.destroyForcibly();
                throw new IllegalStateException("flock " + mode + " " + file + " failed (exit " + holder.waitFor() + ")");
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run flock: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        long taken = System.nanoTime();
        System.out.printf(Locale.ROOT, "lock %s %s for %s after %.0f s of waiting, load average %s%n", mode, file, what,
            (taken - t0) / 1e9, LoadAverage.now());
        return () -> {
            holder.getOutputStream().close(); // cat sees the end of its input and exits: flock releases the lock
            if (!holder.waitFor(30, TimeUnit.SECONDS)) {
                holder.destroyForcibly();
            }
            System.out.printf(Locale.ROOT, "lock %s released after %.0f s (%s), load average %s%n", mode,
                (System.nanoTime() - taken) / 1e9, what, LoadAverage.now());
        };
    }
}
