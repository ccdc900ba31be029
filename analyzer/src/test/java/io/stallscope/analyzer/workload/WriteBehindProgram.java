package io.stallscope.analyzer.workload;

import jdk.jfr.Event;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Appends and reads of the same segment file at the same time, with the agent's events declared as in
 * {@link AgentOpsProgram} ({@code stallscope.RecordsAppend}, {@code stallscope.TransferTo}) and its
 * {@code stallscope.LogDir} (fields logDir, fileSystem, device, mountPoint) labelling each log dir: the disk here is
 * not XFS, so the events say which file system the analyzer is to assume. Every append and read really runs for
 * the time its event says (appends of 4 KiB every few ms; sendfile of the file to /dev/null in a loop), on threads
 * named like a broker's. Scenarios, one after the other, each on its own threads and files:
 * <ol>
 * <li>{@code xfs}: a network thread's transfer_to of orders-3's segment (400 ms), and from 100 ms in a handler's
 * records_append to it (150 ms), in a log dir labelled xfs;</li>
 * <li>{@code ext4}: the same, orders-4, in a log dir labelled ext4;</li>
 * <li>{@code other-file}: xfs, the append to orders-5 while the network thread sends orders-6;</li>
 * <li>{@code trap}: xfs, a 300 ms append to orders-7 while a network-named thread runs
 * {@code lambda$transferToBgThread$N}, which computes and makes no system call;</li>
 * <li>{@code samples}: xfs, a 300 ms append to orders-8 while a network thread sends orders-8 with no event for it
 * (as the JDK records none for sendfile): only wall samples show it;</li>
 * <li>{@code unknown}: a log dir with no LogDir event; a 40 ms append (orders-9) and a 150 ms one (orders-10), each
 * under a transfer_to of its file;</li>
 * <li>{@code jdk-write}: xfs, a handler's write(2) known only from the JDK's jdk.FileWrite event (no RecordsAppend),
 * made to last ~200 ms by writing 1 MiB into a FIFO named like orders-11's segment that a network thread drains
 * late, under that thread's transfer_to of the same path.</li>
 * </ol>
 * Ground truth, one line per scenario: name, writer, reader, write from, to, read from, to (epoch ns).
 *
 * <p>Args: {@code seconds(ignored) workDir groundTruthFile}
 */
public final class WriteBehindProgram {
    static final ConcurrentLinkedQueue<String> TRUTH = new ConcurrentLinkedQueue<>();
    static final String NETWORK = "data-plane-kafka-network-thread-1-ListenerName(PLAINTEXT)-PLAINTEXT-";
    static final String HANDLER = "data-plane-kafka-request-handler-";

    @Name("stallscope.RecordsAppend")
    static final class RecordsAppend extends AgentOpsProgram.OpEvent {
    }

    @Name("stallscope.TransferTo")
    static final class TransferTo extends AgentOpsProgram.OpEvent {
    }

    @Name("stallscope.LogDir")
    @StackTrace(false)
    static final class LogDir extends Event {
        public String logDir;
        public String fileSystem;
        public String device;
        public String mountPoint;
    }

    public static void main(String[] args) throws Exception {
        Path work = Paths.get(args[1]);
        Path truth = Paths.get(args[2]);
        Path xfs = Files.createDirectories(work.resolve("xfs-logs"));
        Path ext4 = Files.createDirectories(work.resolve("ext4-logs"));
        Path plain = Files.createDirectories(work.resolve("plain-logs"));
        logDir(xfs, "xfs", "/dev/loop3");
        logDir(ext4, "ext4", "/dev/loop4");

        scenario("xfs", segment(xfs, 3), segment(xfs, 3), 1, 400, 100, 150, true);
        scenario("ext4", segment(ext4, 4), segment(ext4, 4), 2, 400, 100, 150, true);
        scenario("other-file", segment(xfs, 5), segment(xfs, 6), 3, 400, 100, 150, true);
        trap(segment(xfs, 7), 4);
        scenario("samples", segment(xfs, 8), segment(xfs, 8), 5, 500, 100, 300, false);
        scenario("unknown-short", segment(plain, 9), segment(plain, 9), 6, 300, 100, 40, true);
        scenario("unknown-long", segment(plain, 10), segment(plain, 10), 7, 400, 100, 150, true);
        jdkWrite(xfs, 8);
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(truth))) {
            TRUTH.forEach(w::println);
        }
    }

    static void jdkWrite(Path logDir, int n) throws Exception {
        Path f = Files.createDirectories(logDir.resolve("orders-11")).resolve("00000000000000000000.log");
        Process mkfifo = new ProcessBuilder("mkfifo", f.toString()).inheritIO().start();
        if (mkfifo.waitFor() != 0) throw new IllegalStateException("mkfifo failed");
        long[] w = new long[2];
        long[] r = new long[2];
        Thread writer = new Thread(() -> {
            try (FileChannel out = FileChannel.open(f, StandardOpenOption.WRITE)) {
                // The profiler's signals cut a pipe write short once part of it is written, so write until done;
                // a call that finds the pipe full waits for the reader. The truth is the longest call.
                ByteBuffer buf = ByteBuffer.allocate(1 << 20);
                while (buf.hasRemaining()) {
                    long from = ContentionProgram.epochNanos();
                    out.write(buf);
                    long to = ContentionProgram.epochNanos();
                    if (to - from > w[1] - w[0]) {
                        w[0] = from;
                        w[1] = to;
                    }
                }
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        }, HANDLER + n);
        Thread reader = new Thread(() -> {
            r[0] = ContentionProgram.epochNanos();
            long t0 = System.nanoTime();
            long bytes = 0;
            try (java.io.FileInputStream in = new java.io.FileInputStream(f.toFile())) {
                sleep(200);
                byte[] buf = new byte[64 * 1024];
                for (int k; (k = in.read(buf)) > 0; ) bytes += k;
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
            r[1] = ContentionProgram.epochNanos();
            AgentOpsProgram.commit(new TransferTo(), "transfer_to", System.nanoTime() - t0, "network", 11, bytes, f.toString());
        }, NETWORK + n);
        writer.start();
        reader.start();
        writer.join();
        reader.join();
        TRUTH.add("jdk-write\t" + writer.getName() + "\t" + reader.getName() + "\t" + w[0] + "\t" + w[1] + "\t" + r[0] + "\t" + r[1]);
    }

    static void logDir(Path dir, String fs, String device) {
        LogDir e = new LogDir();
        e.logDir = dir.toString();
        e.fileSystem = fs;
        e.device = device;
        e.mountPoint = dir.getParent().toString();
        e.commit();
    }

    /** A segment of 8 MiB in partition directory orders-N, so sendfile has something to send. */
    static Path segment(Path logDir, int partition) throws IOException {
        Path dir = Files.createDirectories(logDir.resolve("orders-" + partition));
        Path f = dir.resolve("00000000000000000000.log");
        if (!Files.exists(f)) Files.write(f, new byte[8 << 20]);
        return f;
    }

    /**
     * The reader sends {@code read} for {@code readMs} (with a TransferTo event if {@code readEvent}); the writer
     * starts {@code delayMs} later and appends to {@code written} for {@code writeMs}.
     */
    static void scenario(String name, Path written, Path read, int n, long readMs, long delayMs, long writeMs, boolean readEvent)
            throws Exception {
        long[] r = new long[2];
        long[] w = new long[2];
        Thread reader = new Thread(() -> r[0] = send(read, readMs, readEvent, r), NETWORK + n);
        Thread writer = new Thread(() -> {
            sleep(delayMs);
            append(written, writeMs, w);
        }, HANDLER + n);
        reader.start();
        writer.start();
        reader.join();
        writer.join();
        TRUTH.add(name + "\t" + writer.getName() + "\t" + reader.getName() + "\t" + w[0] + "\t" + w[1] + "\t" + r[0] + "\t" + r[1]);
        sleep(150);
    }

    static long send(Path file, long millis, boolean event, long[] span) {
        span[0] = ContentionProgram.epochNanos();
        long t0 = System.nanoTime();
        long bytes = 0;
        try (FileChannel in = FileChannel.open(file);
             FileChannel out = FileChannel.open(Paths.get("/dev/null"), StandardOpenOption.WRITE)) {
            while (System.nanoTime() - t0 < millis * 1_000_000L) {
                bytes += in.transferTo(0, in.size(), out);
            }
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
        long d = System.nanoTime() - t0;
        span[1] = ContentionProgram.epochNanos();
        if (event) AgentOpsProgram.commit(new TransferTo(), "transfer_to", d, "network", partition(file), bytes, file.toString());
        return span[0];
    }

    static void append(Path file, long millis, long[] span) {
        span[0] = ContentionProgram.epochNanos();
        long t0 = System.nanoTime();
        long bytes = 0;
        try (FileChannel out = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            while (System.nanoTime() - t0 < millis * 1_000_000L) {
                bytes += out.write(ByteBuffer.allocate(4096));
                sleep(3);
            }
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
        long d = System.nanoTime() - t0;
        span[1] = ContentionProgram.epochNanos();
        AgentOpsProgram.commit(new RecordsAppend(), "records_append", d, "request_handler", partition(file), bytes, file.toString());
    }

    /** orders-N's N (commit() labels the topic "orders"). */
    static int partition(Path segment) {
        String dir = segment.getParent().getFileName().toString();
        return Integer.parseInt(dir.substring(dir.lastIndexOf('-') + 1));
    }

    /** A thread whose method is named like a sendfile but makes no system call: samples must not call it sendfile. */
    static void trap(Path written, int n) throws Exception {
        long[] w = new long[2];
        long[] r = new long[2];
        Thread reader = transferToBgThread(NETWORK + n, 400, r);
        Thread writer = new Thread(() -> {
            sleep(50);
            append(written, 300, w);
        }, HANDLER + n);
        reader.start();
        writer.start();
        reader.join();
        writer.join();
        TRUTH.add("trap\t" + writer.getName() + "\t" + reader.getName() + "\t" + w[0] + "\t" + w[1] + "\t" + r[0] + "\t" + r[1]);
        sleep(150);
    }

    static Thread transferToBgThread(String name, long millis, long[] span) {
        return new Thread(() -> {
            span[0] = ContentionProgram.epochNanos();
            long t0 = System.nanoTime();
            double x = 1;
            while (System.nanoTime() - t0 < millis * 1_000_000L) {
                for (int i = 0; i < 10_000; i++) x = Math.sqrt(x + i);
            }
            span[1] = ContentionProgram.epochNanos();
            if (x < 0) System.out.println(x);
        }, name);
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
