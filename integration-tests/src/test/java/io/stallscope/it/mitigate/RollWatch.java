package io.stallscope.it.mitigate;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The next segment roll of a topic on a broker's log dir, as the file system sees it: a new {@code .log} file in
 * one of the topic's partition directories (inotify, through the JDK's WatchService). Only files created after
 * this watch began count, so a cut can be timed to a roll that is still in its flush window.
 */
final class RollWatch implements AutoCloseable {
    private final WatchService watch;
    private final Map<WatchKey, Path> dirs = new HashMap<>();

    RollWatch(Path logDir, String topic, int partitions) throws IOException {
        watch = logDir.getFileSystem().newWatchService();
        try {
            for (int p = 0; p < partitions; p++) {
                Path dir = logDir.resolve(topic + "-" + p);
                dirs.put(dir.register(watch, StandardWatchEventKinds.ENTRY_CREATE), dir);
            }
        } catch (IOException | RuntimeException e) {
            watch.close();
            throw e;
        }
    }

    /** The next {@code .log} file created in any partition directory, or null when none came within {@code timeout}. */
    Path next(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            WatchKey key = watch.poll(left, TimeUnit.NANOSECONDS);
            if (key == null) {
                return null;
            }
            Path found = null;
            for (WatchEvent<?> e : key.pollEvents()) {
                if (e.kind() == StandardWatchEventKinds.ENTRY_CREATE && e.context() instanceof Path name
                    && name.toString().endsWith(".log")) {
                    found = dirs.get(key).resolve(name);
                }
            }
            key.reset();
            if (found != null) {
                return found;
            }
        }
    }

    @Override
    public void close() throws IOException {
        watch.close();
    }
}
