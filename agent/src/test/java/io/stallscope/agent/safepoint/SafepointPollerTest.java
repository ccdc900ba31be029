package io.stallscope.agent.safepoint;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** How two reads of HotSpot's counters become syncs. */
class SafepointPollerTest {
    private static final long MS = 1_000_000L;

    @Test
    void oneSafepointIsOneSyncEndingWhereItsOperationBegan() {
        List<SafepointSync> out = new ArrayList<>();
        long read = System.nanoTime();
        // a 212 ms sync, then 30 ms of the operation; the poller woke as the safepoint ended
        SafepointPoller.between(new long[] {41, 5 * MS, 90 * MS}, new long[] {42, 217 * MS, 332 * MS}, 0, read, 1.0, out::add);
        assertThat(out).hasSize(1);
        SafepointSync sync = out.get(0);
        assertThat(sync.safepointId).isEqualTo(42);
        assertThat(sync.windowStartNanos).as("one safepoint: placed, no window").isZero();
        assertThat(sync.syncNanos).isEqualTo(212 * MS);
        assertThat(sync.operation).isEqualTo("unnamed");
        assertThat(sync.safepoints).isEqualTo(1);
        assertThat(sync.slackNanos).isEqualTo(SafepointPoller.SLACK_NANOS);
        long start = SafepointHolder.toNanoTime(sync.startEpochNanos);
        // placed at read - 30 ms - 212 ms, to within the two clocks' conversion
        assertThat(Math.abs(start - (read - 242 * MS))).isLessThan(MS);
    }

    @Test
    void severalSafepointsAreOneSyncOfTheirSum() {
        List<SafepointSync> out = new ArrayList<>();
        long read = System.nanoTime();
        SafepointPoller.between(new long[] {10, 0, 0}, new long[] {13, 90 * MS, 120 * MS}, read - 130 * MS, read, 1.0,
            out::add);
        assertThat(out).singleElement().satisfies(s -> {
            assertThat(s.safepoints).isEqualTo(3);
            assertThat(s.windowStartNanos).as("the holder is looked for since the read before").isEqualTo(read - 130 * MS);
            assertThat(s.syncNanos).isEqualTo(90 * MS);
            assertThat(SafepointLines.format(s, null)).contains(" safepoints=3").doesNotContain("threads=");
        });
    }

    @Test
    void noSafepointNoSync() {
        List<SafepointSync> out = new ArrayList<>();
        SafepointPoller.between(new long[] {10, 5, 7}, new long[] {10, 5, 7}, 0, System.nanoTime(), 1.0, out::add);
        assertThat(out).isEmpty();
        // before HotSpot's clock frequency counter exists (premain), the ticks cannot be told in time: nothing
        SafepointPoller.between(new long[] {10, 5, 7}, new long[] {11, 50 * MS, 70 * MS}, 0, System.nanoTime(), 0, out::add);
        assertThat(out).isEmpty();
    }

    @Test
    void ticksAreTurnedIntoNanoseconds() {
        List<SafepointSync> out = new ArrayList<>();
        // a 10 MHz clock: 100 ns a tick
        SafepointPoller.between(new long[] {1, 0, 0}, new long[] {2, 600_000, 700_000}, 0, System.nanoTime(), 100.0, out::add);
        assertThat(out.get(0).syncNanos).isEqualTo(60 * MS);
    }

    @Test
    void aWholeTimeNotCountedYetPlacesTheSyncAtTheRead() {
        // HotSpot adds the whole time after it lets the threads go: a read may see the sync and not yet the whole
        List<SafepointSync> out = new ArrayList<>();
        long read = System.nanoTime();
        SafepointPoller.between(new long[] {1, 0, 0}, new long[] {2, 80 * MS, 0}, 0, read, 1.0, out::add);
        long start = SafepointHolder.toNanoTime(out.get(0).startEpochNanos);
        assertThat(Math.abs(start - (read - 80 * MS))).isLessThan(MS);
    }
}
