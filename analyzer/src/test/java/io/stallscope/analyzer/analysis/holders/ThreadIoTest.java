package io.stallscope.analyzer.analysis.holders;

import io.stallscope.analyzer.model.IoEvent;
import io.stallscope.analyzer.model.IoEvents;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** The binary search answers what the walk from a thread's first event answered, nested and long events included. */
class ThreadIoTest {
    @Test
    void findsTheEventTheWalkFromTheFirstFound() {
        Random random = new Random(42);
        for (int round = 0; round < 200; round++) {
            IoEvents all = new IoEvents();
            // Another thread's events between this one's: the search answers with numbers in the whole recording.
            all.add(new IoEvent("FileWrite", 5, 900, 1, 0, "other", 1));
            List<Integer> mine = new ArrayList<>();
            int n = random.nextInt(40);
            for (int i = 0; i < n; i++) {
                long start = random.nextInt(1000);
                // Mostly short; now and then one spanning many others (a long fsync around short writes).
                long length = random.nextInt(10) == 0 ? random.nextInt(400) : random.nextInt(8);
                mine.add(all.size());
                all.add(new IoEvent("FileWrite", start, start + length, 0, 0, "f", 1));
                if (random.nextInt(4) == 0) all.add(new IoEvent("FileRead", random.nextInt(1000), 1000, 1, 0, "other", 1));
            }
            mine.sort(Comparator.comparingLong(all::start));
            int[] byStart = mine.stream().mapToInt(Integer::intValue).toArray();
            ThreadIo io = new ThreadIo(all, byStart);
            for (int q = 0; q < 200; q++) {
                long from = random.nextInt(1100) - 50;
                long to = from + random.nextInt(60);
                assertThat(io.firstOverlapping(from, to)).as("[%d, %d] in %s", from, to, mine).isEqualTo(walk(all, byStart, from, to));
            }
        }
    }

    @Test
    void noEventsNoOverlap() {
        assertThat(new ThreadIo(new IoEvents(), new int[0]).firstOverlapping(0, Long.MAX_VALUE)).isEqualTo(-1);
    }

    /** What HolderAttributor did before: the first event by start that ends at or after from, if it starts by to. */
    private static int walk(IoEvents all, int[] byStart, long from, long to) {
        for (int e : byStart) {
            if (all.start(e) > to) break;
            if (all.end(e) >= from) return e;
        }
        return -1;
    }
}
