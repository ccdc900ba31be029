package io.stallscope.agent.mitigate;

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
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * What the prefetch costs when the pages are already resident (the common case: a consumer at the tail,
 * a follower in sync, a range warmed a moment ago), so that it need not guess which ones are: one warm-up
 * of a slice with the mapped warmer, against the sendfile to /dev/null it replaced and a pread of the same
 * bytes (the copy the TLS network thread makes anyway). The file is on the file system of the working
 * directory (not tmpfs) and read before every iteration, so its pages are resident.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class WarmResidentBenchmark {
    @Param({"65536", "1048576"})
    int sliceBytes;

    private Path file;
    private FileChannel channel;
    private FileChannel devNull;
    private SliceWarmer warmer;
    private ByteBuffer buffer;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        file = Files.createTempFile(Path.of("target"), "resident", ".log");
        byte[] data = new byte[4 << 20];
        ThreadLocalRandom.current().nextBytes(data);
        Files.write(file, data);
        channel = FileChannel.open(file, StandardOpenOption.READ);
        devNull = FileChannel.open(Path.of("/dev/null"), StandardOpenOption.WRITE);
        warmer = new SliceWarmer(Unmapper.find(new String[1]), SliceWarmerTest.advice());
        buffer = ByteBuffer.allocateDirect(sliceBytes);
    }

    @Setup(Level.Iteration)
    public void makeResident() throws IOException {
        ByteBuffer b = ByteBuffer.allocateDirect(1 << 20);
        for (long pos = 0; pos < channel.size(); pos += b.capacity()) {
            b.clear();
            channel.read(b, pos);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        channel.close();
        devNull.close();
        Files.delete(file);
    }

    @Benchmark
    public long mappedWarmUp() {
        return warmer.warm(new FileSlice(channel, file.toFile(), 4096, sliceBytes), 4096, sliceBytes, Long.MAX_VALUE / 4 + System.nanoTime()).bytes;
    }

    @Benchmark
    public long sendfileToDevNull() throws IOException {
        return channel.transferTo(4096, sliceBytes, devNull);
    }

    @Benchmark
    public int pread() throws IOException {
        buffer.clear();
        return channel.read(buffer, 4096);
    }
}
