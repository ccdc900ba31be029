package io.stallscope.it.mitigate;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Runs in a child JVM under the shim: does each kind of call the shim knows, on files that match its
 * patterns and files that do not, cold and warm, and prints "step millis" per call.
 * Args: work directory, path of the pagecache tool.
 */
public final class SlowDiskProbe {
    private static final int MIB = 1024 * 1024;

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        String pagecache = args[1];
        Path slow = write(dir.resolve("data.slow"), MIB);
        Path fast = write(dir.resolve("data.fast"), MIB);

        time("fsync_match", () -> force(slow, true));
        time("fdatasync_match", () -> force(slow, false));
        time("fsync_other", () -> force(fast, true));

        evict(pagecache, slow, fast);
        time("pread_cold_match", () -> pread(slow));
        time("pread_warm_match", () -> pread(slow));
        time("pread_cold_other", () -> pread(fast));

        evict(pagecache, slow);
        time("sendfile_cold_match", () -> sendfile(slow));
        time("sendfile_warm_match", () -> sendfile(slow));

        // readahead is off for matching files: the next 64 KiB is still cold after the first is read
        evict(pagecache, slow);
        time("pread_first_match", () -> pread(slow, 0, 64 * 1024));
        time("pread_next_match", () -> pread(slow, 64 * 1024, 64 * 1024));

        // two cold extents: pages 0-1 and 3, page 2 made resident first
        evict(pagecache, slow);
        time("pread_page2_match", () -> pread(slow, 8192, 4096));
        time("pread_extents_match", () -> pread(slow, 0, 16 * 1024));
    }

    interface Step {
        void run() throws IOException;
    }

    private static void time(String name, Step step) throws IOException {
        long start = System.nanoTime();
        step.run();
        System.out.println(name + " " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }

    private static Path write(Path file, int size) throws IOException {
        byte[] data = new byte[size];
        new Random(size).nextBytes(data);
        return Files.write(file, data);
    }

    private static void force(Path file, boolean metadata) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[] {1}), 0);
            ch.force(metadata);
        }
    }

    private static void pread(Path file) throws IOException {
        pread(file, 4096, 64 * 1024);
    }

    private static void pread(Path file, long position, int size) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ch.read(ByteBuffer.allocate(size), position); // positional: pread64
        }
    }

    private static void sendfile(Path file) throws IOException {
        try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ);
             FileChannel devNull = FileChannel.open(Path.of("/dev/null"), StandardOpenOption.WRITE)) {
            in.transferTo(0, in.size(), devNull);
        }
    }

    private static void evict(String pagecache, Path... files) throws Exception {
        String[] cmd = new String[files.length + 2];
        cmd[0] = pagecache;
        cmd[1] = "evict";
        for (int i = 0; i < files.length; i++) {
            cmd[i + 2] = files[i].toString();
        }
        ProcessBuilder pb = new ProcessBuilder(cmd).inheritIO();
        pb.environment().remove("LD_PRELOAD"); // the tool's own fdatasync is not what is measured
        Process p = pb.start();
        if (p.waitFor() != 0) {
            throw new IllegalStateException("evict failed");
        }
    }
}
