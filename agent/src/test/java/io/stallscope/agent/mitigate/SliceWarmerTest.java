package io.stallscope.agent.mitigate;

import net.bytebuddy.agent.ByteBuddyAgent;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ThreadLocalRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The mapped warm-up on real files: what it reads, where it stops, and that no mapping outlives it. */
class SliceWarmerTest {
    private static final long NO_DEADLINE = Long.MAX_VALUE / 4;
    private static Unmapper unmapper;
    private static PageAdvice advice;

    @TempDir
    Path dir;

    @BeforeAll
    static void unmapperOfThisJdk() {
        String[] why = new String[1];
        unmapper = Unmapper.find(why);
        assertThat(unmapper).as(String.valueOf(why[0])).isNotNull();
        advice = advice();
    }

    /** This JDK's madvise/mincore, java.nio opened as the agent opens it. */
    static PageAdvice advice() {
        String[] why = new String[1];
        PageAdvice found = PageAdvice.find(ByteBuddyAgent.install(), why);
        assertThat(found).as(String.valueOf(why[0])).isNotNull();
        return found;
    }

    private Path file(int bytes) throws IOException {
        byte[] data = new byte[bytes];
        ThreadLocalRandom.current().nextBytes(data);
        return Files.write(dir.resolve("00000000000000000000.log"), data);
    }

    /** Mappings of the file in this process, from the kernel's own list. */
    private static long mappingsOf(Path file) throws IOException {
        String name = file.toRealPath().toString();
        return Files.readAllLines(Path.of("/proc/self/maps")).stream().filter(l -> l.endsWith(name)).count();
    }

    @Test
    void warmsTheWholeRangeAndLeavesNoMappingBehind() throws IOException {
        warmsTheWholeRange(new SliceWarmer(unmapper, advice));
    }

    @Test
    void withoutAdviceWarmsTheWholeRangeChunkByChunkAndLeavesNoMappingBehind() throws IOException {
        warmsTheWholeRange(new SliceWarmer(unmapper, null));
    }

    private void warmsTheWholeRange(SliceWarmer w) throws IOException {
        Path f = file(5 * SliceWarmer.CHUNK + 1000);
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            SliceWarmer.Outcome o = w.warm(ch, 100, 4 * SliceWarmer.CHUNK + 7, System.nanoTime() + NO_DEADLINE);
            assertThat(o.bytes).isEqualTo(4 * SliceWarmer.CHUNK + 7);
            assertThat(o.stopped).isNull();
            assertThat(w.mapped()).isZero();
            assertThat(mappingsOf(f)).isZero();
        }
    }

    @Test
    void appendsToTheSameFileGoOnWhileItWarms() throws Exception {
        Path f = file(64 * SliceWarmer.CHUNK);
        SliceWarmer w = new SliceWarmer(unmapper, advice);
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            for (int i = 0; i < 20; i++) {
                ch.write(ByteBuffer.allocate(4096), ch.size()); // the active segment grows under the warm-up
                SliceWarmer.Outcome o = w.warm(ch, (long) i * SliceWarmer.CHUNK, 2L * SliceWarmer.CHUNK,
                    System.nanoTime() + NO_DEADLINE);
                assertThat(o.bytes).isEqualTo(2L * SliceWarmer.CHUNK);
            }
            assertThat(mappingsOf(f)).isZero();
        }
    }

    @Test
    void residentPagesCountAsWarmedEvenPastTheDeadline() throws IOException {
        Path f = file(4 * SliceWarmer.CHUNK); // just written: resident
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
            SliceWarmer.Outcome o = new SliceWarmer(unmapper, advice).warm(ch, 0, 4 * SliceWarmer.CHUNK, System.nanoTime() - 1);
            assertThat(o.bytes).isEqualTo(4 * SliceWarmer.CHUNK);
            assertThat(o.stopped).isNull();
            assertThat(mappingsOf(f)).isZero();
        }
    }

    @Test
    void withoutAdviceADeadlineAlreadyPastStopsAfterTheFirstChunk() throws IOException {
        Path f = file(4 * SliceWarmer.CHUNK);
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
            SliceWarmer.Outcome o = new SliceWarmer(unmapper, null).warm(ch, 0, 4 * SliceWarmer.CHUNK, System.nanoTime() - 1);
            assertThat(o.bytes).isEqualTo(SliceWarmer.CHUNK);
            assertThat(o.stopped).isEqualTo(SliceWarmer.TIMED_OUT);
            assertThat(mappingsOf(f)).isZero();
        }
    }

    @Test
    void aFileTruncatedBeforeTheWarmUpIsWarmedUpToItsEndAndSaidTruncated() throws IOException {
        Path f = file(4 * SliceWarmer.CHUNK);
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ch.truncate(SliceWarmer.CHUNK + 10);
            SliceWarmer.Outcome partly = new SliceWarmer(unmapper, advice).warm(ch, 0, 3 * SliceWarmer.CHUNK, System.nanoTime() + NO_DEADLINE);
            assertThat(partly.bytes).isEqualTo(SliceWarmer.CHUNK + 10);
            assertThat(partly.stopped).isEqualTo("truncated");
            SliceWarmer.Outcome none = new SliceWarmer(unmapper, advice).warm(ch, 2 * SliceWarmer.CHUNK, 100, System.nanoTime() + NO_DEADLINE);
            assertThat(none.bytes).isZero();
            assertThat(none.stopped).isEqualTo("truncated");
            assertThat(mappingsOf(f)).isZero();
        }
    }

    @Test
    void aDeletedSegmentIsStillWarmedThroughItsOpenChannelAndAClosedOneIsSkipped() throws IOException {
        Path f = file(2 * SliceWarmer.CHUNK);
        SliceWarmer w = new SliceWarmer(unmapper, advice);
        FileChannel ch = FileChannel.open(f, StandardOpenOption.READ);
        Files.delete(f); // Kafka deletes a segment's file while a fetch may still hold its channel
        assertThat(w.warm(ch, 0, 2 * SliceWarmer.CHUNK, System.nanoTime() + NO_DEADLINE).bytes).isEqualTo(2 * SliceWarmer.CHUNK);
        ch.close();
        SliceWarmer.Outcome closed = w.warm(ch, 0, SliceWarmer.CHUNK, System.nanoTime() + NO_DEADLINE);
        assertThat(closed.bytes).isZero();
        assertThat(closed.stopped).isEqualTo("closed");
        assertThat(w.mapped()).isZero();
        assertThat(Files.readAllLines(Path.of("/proc/self/maps")).stream().filter(l -> l.contains(dir.toString())).count())
            .isZero();
    }

    @Test
    void evictedPagesAreReadInWithoutBeingTouched() throws Exception {
        Path f = file(8 * SliceWarmer.CHUNK);
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ch.force(true); // clean pages only can be dropped
            Process dd = new ProcessBuilder("dd", "if=" + f, "iflag=nocache", "count=0", "status=none").inheritIO().start();
            assertThat(dd.waitFor()).isZero(); // POSIX_FADV_DONTNEED on this one file
            assumeTrue(!resident(ch), "the file system of " + dir + " keeps its pages (tmpfs?): nothing to read in");
            SliceWarmer.Outcome o = new SliceWarmer(unmapper, advice).warm(ch, 0, 8 * SliceWarmer.CHUNK,
                System.nanoTime() + 10_000_000_000L);
            assertThat(o.stopped).isNull();
            assertThat(o.bytes).isEqualTo(8 * SliceWarmer.CHUNK);
            assertThat(resident(ch)).isTrue();
            assertThat(mappingsOf(f)).isZero();
        }
    }

    private static boolean resident(FileChannel ch) throws IOException {
        java.nio.MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size());
        try {
            return m.isLoaded();
        } finally {
            try {
                unmapper.unmap(m);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
