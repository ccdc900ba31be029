package io.stallscope.analyzer.analysis.waits;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** The longest waits of a stream split in windows are those of the whole stream, with or without a floor. */
class LongestWaitsTest {
    private static Wait wait(int thread, long start, long duration) {
        return new Wait(0, thread, start, start + duration, "0:L@" + (thread % 3), "L", "monitor", "m", "m", 1, true, -1);
    }

    @Test
    void aFloorFromEarlierWindowsKeepsTheSameLongest() {
        Random random = new Random(19);
        List<List<Wait>> windows = new ArrayList<>();
        List<Wait> all = new ArrayList<>();
        for (int w = 0; w < 5; w++) {
            List<Wait> window = new ArrayList<>();
            // Few distinct durations: ties decided by thread, start, end and lock.
            for (int i = 0; i < 3_000; i++) window.add(wait(random.nextInt(40), random.nextInt(1_000_000), random.nextInt(50)));
            windows.add(window);
            all.addAll(window);
        }
        int limit = 500;
        LongestWaits whole = new LongestWaits(limit);
        all.forEach(whole::offer);
        List<Wait> expected = LongestWaits.longest(List.of(whole), limit);

        List<Wait> kept = new ArrayList<>();
        int keptWithFloor = 0;
        int keptWithout = 0;
        for (List<Wait> window : windows) {
            LongestWaits part = new LongestWaits(limit, LongestWaits.floorOf(kept, limit));
            window.forEach(part::offer);
            keptWithFloor += part.size();
            LongestWaits alone = new LongestWaits(limit);
            window.forEach(alone::offer);
            keptWithout += alone.size();
            kept = LongestWaits.longest(List.of(LongestWaits.of(kept), part), limit);
        }

        assertThat(kept).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(keptWithFloor).as("later windows keep only what beats the floor").isLessThan(keptWithout / 2);
    }
}
