package io.stallscope.agent.bench;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.FileRecords;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.concurrent.TimeUnit;

/**
 * FileRecords.append of one 1 KiB batch to a real file in a partition-named directory, on a thread
 * named like a request handler. Run once plain and once with the agent (see AppendOverheadRun): the
 * difference is what the agent adds per call.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class AppendBenchmark {
    /** Truncate now and then so the file stays at most 64 MiB and in the page cache. */
    private static final int TRUNCATE_EVERY = 64 * 1024;

    private File dir;
    private FileRecords records;
    private MemoryRecords batch;
    private int appends;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        Thread.currentThread().setName("data-plane-kafka-request-handler-0");
        // tmpfs by default: the write itself should be cheap and steady, or the agent's share drowns in disk noise
        java.nio.file.Path base = java.nio.file.Paths.get(System.getProperty("bench.dir", "/dev/shm"));
        dir = Files.createTempDirectory(Files.isDirectory(base) ? base : java.nio.file.Paths.get(
            System.getProperty("java.io.tmpdir")), "stallscope-bench").resolve("bench-0").toFile();
        if (!dir.mkdirs()) {
            throw new IOException("cannot create " + dir);
        }
        records = FileRecords.open(new File(dir, "00000000000000000000.log"));
        // one record with a 1 KiB value: the batch written is 1024 bytes plus Kafka's headers
        batch = MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(new byte[1024]));
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        records.closeHandlers();
        records.deleteIfExists();
        Files.deleteIfExists(dir.toPath());
    }

    @Benchmark
    public int append() throws IOException {
        if (++appends == TRUNCATE_EVERY) {
            appends = 0;
            records.truncateTo(0);
        }
        return records.append(batch);
    }
}
