package io.stallscope.agent.mitigate;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Whether this process may take one more mapping without crowding Kafka's own: vm.max_map_count minus the
 * lines of /proc/self/maps. Kafka maps every index it opens, and a refused mmap at a roll ("Map failed")
 * takes the log dir offline; a warm-up's mapping must never be the one that uses up the count. Measured at
 * most once a second (the maps file of a broker with many segments is megabytes), by whichever caller finds
 * the measurement stale; the others use the last answer. Without /proc (not Linux) there is no count to
 * crowd and the answer is yes.
 */
final class MapHeadroom {
    /**
     * Mappings left free for Kafka: two indexes for each of 1,024 rolls within the second a measurement is
     * used, which also covers the warm-ups' own (num.io.threads + 1 at most).
     */
    static final long MIN_HEADROOM = 2048;
    private static final long STALE_NANOS = 1_000_000_000L;
    private static final Path MAX_MAP_COUNT = Path.of("/proc/sys/vm/max_map_count");
    private static final Path MAPS = Path.of("/proc/self/maps");

    private final long minHeadroom;
    private final AtomicBoolean measuring = new AtomicBoolean();
    private final byte[] buffer = new byte[64 * 1024]; // used by the one measuring thread
    private volatile long measuredAt;
    private volatile boolean measured;
    private volatile boolean enough = true;

    MapHeadroom(long minHeadroom) {
        this.minHeadroom = minHeadroom;
    }

    /** Whether at least minHeadroom mappings are free, as of a measurement at most a second old. */
    boolean enough() {
        long now = System.nanoTime();
        if ((!measured || now - measuredAt > STALE_NANOS) && measuring.compareAndSet(false, true)) {
            try {
                enough = headroom() >= minHeadroom;
                measuredAt = now;
                measured = true;
            } finally {
                measuring.set(false);
            }
        }
        return enough;
    }

    /** vm.max_map_count minus this process's mappings now; Long.MAX_VALUE when either cannot be read. */
    long headroom() {
        try {
            return limit() - lines(MAPS);
        } catch (IOException | RuntimeException e) {
            return Long.MAX_VALUE;
        }
    }

    /**
     * In one read: a sysctl file answers a read at a non-zero offset with end of file, so Files.readAllBytes
     * (one byte first, then the rest) sees "6" of 65530.
     */
    private long limit() throws IOException {
        try (InputStream in = Files.newInputStream(MAX_MAP_COUNT)) {
            int n = in.read(buffer);
            return Long.parseLong(new String(buffer, 0, Math.max(n, 0), StandardCharsets.US_ASCII).trim());
        }
    }

    private long lines(Path file) throws IOException {
        long n = 0;
        try (InputStream in = Files.newInputStream(file)) {
            for (int r; (r = in.read(buffer)) > 0; ) {
                for (int i = 0; i < r; i++) {
                    if (buffer[i] == '\n') {
                        n++;
                    }
                }
            }
        }
        return n;
    }
}
