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

    /** The slice a fetch of the file would give: Kafka's channel and the file's path (the range is passed apart). */
    static FileSlice slice(FileChannel ch, Path f) {
        return new FileSlice(ch, f.toFile(), 0, 0);
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
            SliceWarmer.Outcome o = w.warm(slice(ch, f), 100, 4 * SliceWarmer.CHUNK + 7, System.nanoTime() + NO_DEADLINE);
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
                SliceWarmer.Outcome o = w.warm(slice(ch, f), (long) i * SliceWarmer.CHUNK, 2L * SliceWarmer.CHUNK,
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
            SliceWarmer.Outcome o = new SliceWarmer(unmapper, advice).warm(slice(ch, f), 0, 4 * SliceWarmer.CHUNK, System.nanoTime() - 1);
            assertThat(o.bytes).isEqualTo(4 * SliceWarmer.CHUNK);
            assertThat(o.stopped).isNull();
            assertThat(mappingsOf(f)).isZero();
        }
    }

    @Test
    void withoutAdviceADeadlineAlreadyPastStopsAfterTheFirstChunk() throws IOException {
        Path f = file(4 * SliceWarmer.CHUNK);
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
            SliceWarmer.Outcome o = new SliceWarmer(unmapper, null).warm(slice(ch, f), 0, 4 * SliceWarmer.CHUNK, System.nanoTime() - 1);
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
            SliceWarmer.Outcome partly = new SliceWarmer(unmapper, advice).warm(slice(ch, f), 0, 3 * SliceWarmer.CHUNK, System.nanoTime() + NO_DEADLINE);
            assertThat(partly.bytes).isEqualTo(SliceWarmer.CHUNK + 10);
            assertThat(partly.stopped).isEqualTo("truncated");
            SliceWarmer.Outcome none = new SliceWarmer(unmapper, advice).warm(slice(ch, f), 2 * SliceWarmer.CHUNK, 100, System.nanoTime() + NO_DEADLINE);
            assertThat(none.bytes).isZero();
            assertThat(none.stopped).isEqualTo("truncated");
            assertThat(mappingsOf(f)).isZero();
        }
    }

    @Test
    void aSegmentDeletedOrRenamedSinceTheReadIsSkippedAsGoneAndAClosedOneAsClosed() throws IOException {
        Path f = file(2 * SliceWarmer.CHUNK);
        SliceWarmer w = new SliceWarmer(unmapper, advice);
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
            // Kafka renames a segment to .deleted (retention) or .swap (compaction) while a fetch holds its slice
            Files.move(f, dir.resolve("00000000000000000000.log.deleted"));
            SliceWarmer.Outcome gone = w.warm(slice(ch, f), 0, 2 * SliceWarmer.CHUNK, System.nanoTime() + NO_DEADLINE);
            assertThat(gone.bytes).isZero();
            assertThat(gone.stopped).isEqualTo(SliceWarmer.GONE);
            ch.close();
            Files.move(dir.resolve("00000000000000000000.log.deleted"), f);
            SliceWarmer.Outcome closed = w.warm(slice(ch, f), 0, SliceWarmer.CHUNK, System.nanoTime() + NO_DEADLINE);
            assertThat(closed.bytes).isZero();
            assertThat(closed.stopped).isEqualTo("closed");
        }
        assertThat(w.mapped()).isZero();
        assertThat(Files.readAllLines(Path.of("/proc/self/maps")).stream().filter(l -> l.contains(dir.toString())).count())
            .isZero();
    }

    @Test
    void shortOfMappingsItSkipsWithoutMapping() throws IOException {
        Path f = file(2 * SliceWarmer.CHUNK);
        long free = new MapHeadroom(0).headroom();
        assumeTrue(free != Long.MAX_VALUE, "no vm.max_map_count here");
        // asking for more free mappings than this process has left: what a broker near the count would see
        SliceWarmer crowded = new SliceWarmer(unmapper, advice, new MapHeadroom(free + 1000));
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
            SliceWarmer.Outcome o = crowded.warm(slice(ch, f), 0, 2 * SliceWarmer.CHUNK, System.nanoTime() + NO_DEADLINE);
            assertThat(o.bytes).isZero();
            assertThat(o.stopped).isEqualTo(SliceWarmer.MAP_HEADROOM);
            assertThat(crowded.mapped()).isZero();
            SliceWarmer enough = new SliceWarmer(unmapper, advice, new MapHeadroom(Math.max(0, free - 1000)));
            assertThat(enough.warm(slice(ch, f), 0, 2 * SliceWarmer.CHUNK, System.nanoTime() + NO_DEADLINE).bytes)
                .isEqualTo(2 * SliceWarmer.CHUNK);
        }
    }

    @Test
    void theHeadroomIsTheMapCountLimitLessThisProcesssMappings() throws IOException {
        Path max = Path.of("/proc/sys/vm/max_map_count");
        assumeTrue(Files.isReadable(max), "no vm.max_map_count here");
        long limit;
        try (var in = Files.newInputStream(max)) {
            limit = Long.parseLong(new String(in.readAllBytes()).trim()); // a read at an offset > 0 gets nothing
        }
        assertThat(limit).isGreaterThan(1000);
        long before = limit - Files.readAllLines(Path.of("/proc/self/maps")).size();
        long measured = new MapHeadroom(0).headroom();
        long after = limit - Files.readAllLines(Path.of("/proc/self/maps")).size();
        // other threads of this JVM map and unmap meanwhile (GC, JIT): within a few
        assertThat(measured).isBetween(Math.min(before, after) - 50, Math.max(before, after) + 50);
    }

    @Test
    void evictedPagesAreReadInWithoutBeingTouched() throws Exception {
        Path f = file(8 * SliceWarmer.CHUNK);
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ch.force(true); // clean pages only can be dropped
            Process dd = new ProcessBuilder("dd", "if=" + f, "iflag=nocache", "count=0", "status=none").inheritIO().start();
            assertThat(dd.waitFor()).isZero(); // POSIX_FADV_DONTNEED on this one file
            assumeTrue(!resident(ch), "the file system of " + dir + " keeps its pages (tmpfs?): nothing to read in");
            SliceWarmer.Outcome o = new SliceWarmer(unmapper, advice).warm(slice(ch, f), 0, 8 * SliceWarmer.CHUNK,
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
