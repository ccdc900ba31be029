package io.stallscope.agent.mitigate;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.stallscope.agent.logging.BrokerLog;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * What mitigate=index-warm adds to a lookup whose index is resident (nearly every lookup): the memo hit (the same
 * index again within a second on this thread), and the check a lookup makes once a second per index and thread (the
 * mapping read from the index, one mincore over its used bytes), for indexes of 8 KiB and 1 MiB (max.bytes), beside a
 * bare System.nanoTime(). The index file is on the working directory's file system and written before the trial,
 * so its pages are resident.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class IndexWarmBenchmark {
    @Param({"8192", "1048576"})
    int usedBytes;

    private Path file;
    private IndexWarmerTest.TestIndex index;
    private IndexWarmer warmer;
    private PageAdvice advice;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        file = Files.createTempFile(Path.of("target"), "resident", ".index");
        Files.write(file, new byte[usedBytes]);
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            MappedByteBuffer map = f.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, usedBytes);
            map.position(usedBytes);
            index = new IndexWarmerTest.TestIndex(map);
        }
        advice = SliceWarmerTest.advice();
        warmer = new IndexWarmer(advice, 1 << 20, 10_000_000_000L,
            new MitigationMetrics(new SimpleMeterRegistry(), BrokerLog.get()).indexWarm());
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        Files.delete(file);
    }

    @Benchmark
    public void memoHit() throws ReflectiveOperationException {
        warmer.beforeLookup(index);
    }

    @Benchmark
    public boolean residentCheck() throws ReflectiveOperationException {
        MappedByteBuffer map = IndexMaps.of(index);
        return advice.resident(map, 0, map.position());
    }

    @Benchmark
    public long nanoTime() {
        return System.nanoTime();
    }
}
