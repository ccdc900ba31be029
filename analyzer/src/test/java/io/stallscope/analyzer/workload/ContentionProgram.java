package io.stallscope.analyzer.workload;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Reproduces the broker stall the analyzer hunts, in a child JVM under a profiler: request handlers
 * contend for a partition lock (a monitor, or a ReentrantLock) while the holder writes to a log file and
 * sometimes fsyncs inside it; a "network thread" streams the file out with transferTo (sendfile).
 * It writes the true lock hold intervals to a ground-truth file, so tests can check who really held the lock.
 *
 * <p>Args: {@code monitor|reentrant seconds workDir groundTruthFile}
 */
public final class ContentionProgram {
    static final Object PARTITION_LOCK = new Object();
    static final ReentrantLock PARTITION_RLOCK = new ReentrantLock();
    static final ConcurrentLinkedQueue<String> HOLDS = new ConcurrentLinkedQueue<>();
    static final int HANDLERS = 6;
    static final byte[] BATCH = new byte[512 * 1024];

    public static void main(String[] args) throws Exception {
        boolean reentrant = args[0].equals("reentrant");
        long seconds = Long.parseLong(args[1]);
        Path dir = Paths.get(args[2]);
        Path truth = Paths.get(args[3]);
        Files.createDirectories(dir);
        File log = dir.resolve("00000000000000000000.log").toFile();
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;

        List<Thread> threads = new ArrayList<>();
        FileOutputStream out = new FileOutputStream(log, true);
        for (int i = 0; i < HANDLERS; i++) {
            Thread t = new Thread(() -> handle(out, reentrant, deadline), "data-plane-kafka-request-handler-" + i);
            threads.add(t);
        }
        threads.add(new Thread(() -> network(log.toPath(), deadline),
                "data-plane-kafka-network-thread-1-ListenerName(PLAINTEXT)-PLAINTEXT-0"));
        // A thread whose name is markup: the HTML report must show it as text.
        threads.add(new Thread(() -> idle(deadline), "<script>alert(1)</script>"));
        threads.forEach(Thread::start);
        for (Thread t : threads) t.join();
        out.close();
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(truth))) {
            HOLDS.forEach(w::println);
        }
    }

    /** One produce request: append under the partition lock, fsync every fourth append (a segment roll). */
    static void handle(FileOutputStream out, boolean reentrant, long deadline) {
        int n = 0;
        while (System.nanoTime() < deadline) {
            if (reentrant) {
                PARTITION_RLOCK.lock();
                try {
                    appendLocked(out, n++);
                } finally {
                    PARTITION_RLOCK.unlock();
                }
            } else {
                synchronized (PARTITION_LOCK) {
                    appendLocked(out, n++);
                }
            }
            Thread.onSpinWait();
        }
    }

    static void appendLocked(FileOutputStream out, int n) {
        long from = epochNanos();
        try {
            out.write(BATCH);
            if (n % 4 == 3) out.getFD().sync();
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
        HOLDS.add(Thread.currentThread().getName() + "\t" + from + "\t" + epochNanos());
    }

    static void network(Path log, long deadline) {
        try (FileChannel in = FileChannel.open(log, StandardOpenOption.READ);
             FileChannel sink = FileChannel.open(Paths.get("/dev/null"), StandardOpenOption.WRITE)) {
            while (System.nanoTime() < deadline) {
                long size = in.size();
                long pos = 0;
                while (pos < size && System.nanoTime() < deadline) pos += in.transferTo(pos, size - pos, sink);
                Thread.sleep(5);
            }
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    static void idle(long deadline) {
        while (System.nanoTime() < deadline) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    static long epochNanos() {
        java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }
}
