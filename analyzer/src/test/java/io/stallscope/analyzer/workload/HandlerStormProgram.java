package io.stallscope.analyzer.workload;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.zip.CRC32;

/**
 * The shape of issue 42's independent check, for a plain JDK recording (no async-profiler): many threads named
 * like request handlers append to one log under one monitor ({@code FileOutputStream.write} inside it), and now
 * and then to an index under a {@code ReentrantLock}. Recorded with every monitor enter, park and file write,
 * it gives tens of thousands of lock events and hundreds of thousands of I/O events in a minute: each monitor wait
 * names its previous owner, whose file writes the analyzer looks up around the wait.
 *
 * <p>Args: {@code seconds workDir [handlers (48)] [pauseMicros (6000)] [crcRounds (32)]}. The pause between appends
 * is a sleep, not a park: parks are recorded at threshold 0 and would count as lock events. Fewer CRC rounds (the
 * work under the lock) and no pause write the recording faster: 500 MB and 2 GB recordings in minutes, not hours.
 */
public final class HandlerStormProgram {
    static final Object LOG_LOCK = new Object();
    static final ReentrantLock INDEX_LOCK = new ReentrantLock();
    static final byte[] RECORD = new byte[16 * 1024];
    static final byte[] INDEX_ENTRY = new byte[64];

    public static void main(String[] args) throws Exception {
        long seconds = Long.parseLong(args[0]);
        Path dir = Paths.get(args[1]);
        int handlers = args.length > 2 ? Integer.parseInt(args[2]) : 48;
        long pauseMicros = args.length > 3 ? Long.parseLong(args[3]) : 6000;
        int crcRounds = args.length > 4 ? Integer.parseInt(args[4]) : 32;
        Files.createDirectories(dir);
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        List<Thread> threads = new ArrayList<>();
        try (FileOutputStream log = new FileOutputStream(dir.resolve("00000000000000000000.log").toFile());
             FileOutputStream index = new FileOutputStream(dir.resolve("00000000000000000000.index").toFile())) {
            for (int i = 0; i < handlers; i++) {
                threads.add(new Thread(() -> handle(log, index, deadline, pauseMicros, crcRounds), "data-plane-kafka-request-handler-" + i));
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) t.join();
        }
        // The files only exist to be written to: keep the disk free for the next run.
        Files.deleteIfExists(dir.resolve("00000000000000000000.log"));
        Files.deleteIfExists(dir.resolve("00000000000000000000.index"));
    }

    static void handle(FileOutputStream log, FileOutputStream index, long deadline, long pauseMicros, int crcRounds) {
        CRC32 crc = new CRC32();
        try {
            for (int n = 0; System.nanoTime() < deadline; n++) {
                synchronized (LOG_LOCK) {
                    // The append's own work under the lock (Kafka validates and assigns offsets there): it makes
                    // the hold long enough for the others to queue, and gives the samples something to see.
                    crc.reset();
                    for (int k = 0; k < crcRounds; k++) crc.update(RECORD);
                    RECORD[0] = (byte) crc.getValue();
                    log.write(RECORD);
                    // Like a segment roll now and then: the log is truncated, so the file stays small.
                    if (n % 1024 == 0) log.getChannel().truncate(0);
                }
                if (n % 2 == 0) {
                    INDEX_LOCK.lock();
                    try {
                        for (int k = 0; k < crcRounds / 2; k++) crc.update(RECORD);
                        INDEX_ENTRY[0] = (byte) crc.getValue();
                        index.write(INDEX_ENTRY);
                    } finally {
                        INDEX_LOCK.unlock();
                    }
                }
                if (pauseMicros > 0) Thread.sleep(pauseMicros / 1000, (int) (pauseMicros % 1000) * 1000);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
