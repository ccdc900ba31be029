package io.stallscope.agent.mitigate;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.stallscope.agent.logging.BrokerLog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** One fetch's bounds and what is counted, on real files. */
class FetchWarmerTest {
    private static final int MIB = 1 << 20;

    @TempDir
    Path dir;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MitigationMetrics metrics = new MitigationMetrics(registry, BrokerLog.get());

    private FetchWarmer warmer(long minBytes, long maxBytes, long maxFetchBytes, long maxWaitNanos) {
        return new FetchWarmer(minBytes, maxBytes, maxFetchBytes, maxWaitNanos,
            new SliceWarmer(Unmapper.find(new String[1]), SliceWarmerTest.advice()), metrics.prefetch(), null);
    }

    private double events(String event) {
        var c = registry.find("stallscope.mitigation.events").tag("mitigation", "prefetch").tag("event", event).counter();
        return c == null ? 0 : c.count();
    }

    private FileSlice slice(FileChannel ch, Path f, long start, long size) {
        return new FileSlice(ch, f.toFile(), start, size);
    }

    @Test
    void boundsEachPartitionAndTheFetchAndCountsWhatItDid() throws IOException {
        Path f = Files.write(dir.resolve("00000000000000000000.log"), new byte[8 * MIB]);
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
            FetchWarmer w = warmer(4096, MIB, 3 * MIB / 2, 10_000_000_000L);
            long warmed = w.warm(List.of(slice(ch, f, 0, 100), slice(ch, f, 0, 2 * MIB), slice(ch, f, 4 * MIB, 2 * MIB),
                slice(ch, f, 7 * MIB, MIB)));
            assertThat(warmed).isEqualTo(3 * MIB / 2); // 1 MiB of the first big slice, half of the second, none of the third
            assertThat(events("skipped_small")).isEqualTo(1);
            assertThat(events("warmed")).isEqualTo(1);
            assertThat(events("capped")).isEqualTo(1);
            assertThat(events("timed_out")).isZero();
            assertThat(registry.find("stallscope.prefetch.bytes").counter().count()).isEqualTo(3 * MIB / 2);
            assertThat(w.mapped()).isZero();
        }
    }

    @Test
    void pastItsTimeTheHandlerMovesOnAndItIsCounted() throws IOException {
        Path f = Files.write(dir.resolve("00000000000000000000.log"), new byte[4 * MIB]);
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
            long warmed = warmer(0, 4 * MIB, 8 * MIB, 1).warm(List.of(slice(ch, f, 0, 2 * MIB), slice(ch, f, 2 * MIB, 2 * MIB)));
            assertThat(warmed).isLessThan(2 * MIB);
            assertThat(events("timed_out")).isEqualTo(1);
        }
    }

    @Test
    void aClosedSegmentIsSkippedByReasonAndTheRestIsStillWarmed() throws IOException {
        Path f = Files.write(dir.resolve("00000000000000000000.log"), new byte[MIB]);
        FileChannel closed = FileChannel.open(f, StandardOpenOption.READ);
        closed.close();
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
            long warmed = warmer(0, MIB, 8 * MIB, 10_000_000_000L).warm(List.of(slice(closed, f, 0, MIB), slice(ch, f, 0, MIB)));
            assertThat(warmed).isEqualTo(MIB);
            assertThat(events("skipped_closed")).isEqualTo(1);
            assertThat(events("warmed")).isEqualTo(1);
        }
    }

    @Test
    void readAheadWarmsTheRangeAfterEachSliceOnItsOwnThreadAndStopsOnClose() throws Exception {
        Path f = Files.write(dir.resolve("00000000000000000000.log"), new byte[4 * MIB]);
        SliceWarmer slices = new SliceWarmer(Unmapper.find(new String[1]), SliceWarmerTest.advice());
        AheadWarmer ahead = new AheadWarmer(slices, MIB, metrics.prefetch());
        FetchWarmer w = new FetchWarmer(0, MIB, 8 * MIB, 10_000_000_000L, slices, metrics.prefetch(), ahead);
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
            assertThat(w.warm(List.of(slice(ch, f, 0, MIB), slice(ch, f, 3 * MIB + MIB / 2, MIB / 2)))).isEqualTo(3 * MIB / 2);
            // both ranges done; the second starts at the end of the file: nothing to warm, nothing counted
            assertThat(ahead.drained(10_000_000_000L)).isTrue();
            assertThat(events("ahead_warmed")).isEqualTo(1);
            assertThat(registry.find("stallscope.prefetch.bytes").counter().count()).isEqualTo(5 * MIB / 2);
            assertThat(events("ahead_truncated")).isZero();
            assertThat(slices.mapped()).isZero();
        } finally {
            w.close();
        }
    }

    @Test
    void noPrefetchSeriesExistsUntilThePrefetchIsOn() {
        SimpleMeterRegistry fresh = new SimpleMeterRegistry();
        MitigationMetrics m = new MitigationMetrics(fresh, BrokerLog.get());
        assertThat(fresh.find("stallscope.prefetch.bytes").counter()).isNull();
        m.prefetch();
        assertThat(fresh.find("stallscope.prefetch.bytes").counter()).isNotNull();
    }
}
