package io.stallscope.analyzer.workload;

import jdk.jfr.Category;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Emits the Stallscope agent's JFR events from a plain program, for the analyzer's own tests: the analyzer
 * module cannot start a broker (the real broker + agent end-to-end lives in integration-tests). The event
 * classes below copy the agent's event fields ({@code io.stallscope.agent.report.jfr.OpEventField}) field for field (names, types,
 * {@code @Timespan(NANOSECONDS)} on opDuration, stack traces on) and event names ({@code stallscope.RecordsAppend},
 * {@code stallscope.SegmentFlush}), and commit the way the agent's OpRecorder does: when the op ends, with
 * opDuration saying how far back it began.
 *
 * <p>Five threads named like request handlers append 512 KB batches to partition logs under one partition
 * lock (a monitor), fsyncing every fourth batch, and commit a RecordsAppend for each append while still holding
 * the lock; a scheduler thread flushes another file with no lock held. Each op is logged to a ground-truth file
 * (thread, op, partition, start and end in epoch ns, duration from the same nanoTime pair as opDuration).
 *
 * <p>Args: {@code seconds workDir groundTruthFile}
 */
public final class AgentOpsProgram {
    static final Object PARTITION_LOCK = new Object();
    static final ConcurrentLinkedQueue<String> OPS = new ConcurrentLinkedQueue<>();
    static final int HANDLERS = 5;
    static final byte[] BATCH = new byte[512 * 1024];

    @Category({"Stallscope", "Storage"})
    @StackTrace(true)
    abstract static class OpEvent extends Event {
        @Label("Operation")
        public String op;

        @Label("Operation Duration")
        @Timespan(Timespan.NANOSECONDS)
        public long opDuration;

        @Label("Thread Role")
        public String threadRole;

        @Label("Topic")
        public String topic;

        @Label("Partition")
        public int partition = -1;

        @Label("Bytes")
        public long bytes = -1;

        @Label("Path")
        public String path;

        @Label("Failed")
        public boolean failed;
    }

    /** An op event with the "behind" fields the agent adds when it names what the op waited behind. */
    abstract static class BehindOpEvent extends OpEvent {
        @Label("Behind Op")
        public String behindOp;

        @Label("Behind Thread")
        public String behindThread;

        @Label("Behind Overlap (ms)")
        public long behindOverlapMs;

        @Label("Scope")
        public String scope;
    }

    @Name("stallscope.RecordsAppend")
    static final class RecordsAppend extends OpEvent {
    }

    @Name("stallscope.SegmentFlush")
    static final class SegmentFlush extends OpEvent {
    }

    public static void main(String[] args) throws Exception {
        long seconds = Long.parseLong(args[0]);
        Path dir = Paths.get(args[1]);
        Path truth = Paths.get(args[2]);
        Files.createDirectories(dir);
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < HANDLERS; i++) {
            int partition = i;
            File log = dir.resolve("orders-" + partition + ".log").toFile();
            threads.add(new Thread(() -> handle(log, partition, deadline), "data-plane-kafka-request-handler-" + i));
        }
        File flushed = dir.resolve("orders-9.log").toFile();
        threads.add(new Thread(() -> flush(flushed, deadline), "kafka-scheduler-0"));
        threads.forEach(Thread::start);
        for (Thread t : threads) t.join();
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(truth))) {
            OPS.forEach(w::println);
        }
    }

    static void handle(File log, int partition, long deadline) {
        try (FileOutputStream out = new FileOutputStream(log, true)) {
            int n = 0;
            while (System.nanoTime() < deadline) {
                synchronized (PARTITION_LOCK) {
                    long from = ContentionProgram.epochNanos();
                    long t0 = System.nanoTime();
                    out.write(BATCH);
                    if (n++ % 4 == 3) out.getFD().sync();
                    long d = System.nanoTime() - t0;
                    commit(new RecordsAppend(), "records_append", d, "request_handler", partition, BATCH.length, log.getPath());
                    OPS.add(Thread.currentThread().getName() + "\trecords_append\t" + partition + "\t" + from + "\t"
                            + ContentionProgram.epochNanos() + "\t" + d);
                }
                Thread.onSpinWait();
            }
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }

    static void flush(File log, long deadline) {
        try (FileOutputStream out = new FileOutputStream(log, true)) {
            while (System.nanoTime() < deadline) {
                out.write(BATCH);
                long from = ContentionProgram.epochNanos();
                long t0 = System.nanoTime();
                out.getFD().sync();
                long d = System.nanoTime() - t0;
                commit(new SegmentFlush(), "segment_flush", d, "scheduler", 9, -1, log.getPath());
                OPS.add(Thread.currentThread().getName() + "\tsegment_flush\t9\t" + from + "\t" + ContentionProgram.epochNanos() + "\t" + d);
                Thread.sleep(200);
            }
        } catch (IOException | InterruptedException e) {
            throw new RuntimeException(e);
        }
    }

    /** As the agent's OpRecorder.emitJfr: fill the fields, commit at the op's end. */
    static void commit(OpEvent e, String op, long nanos, String role, int partition, long bytes, String path) {
        if (!e.isEnabled()) return;
        e.op = op;
        e.opDuration = nanos;
        e.threadRole = role;
        e.topic = "orders";
        e.partition = partition;
        e.bytes = bytes;
        e.path = path;
        e.failed = false;
        e.commit();
    }
}
