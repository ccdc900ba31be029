package io.stallscope.analyzer.analysis.holders;

import io.stallscope.analyzer.model.IoEvent;
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
            List<IoEvent> events = new ArrayList<>();
            int n = random.nextInt(40);
            for (int i = 0; i < n; i++) {
                long start = random.nextInt(1000);
                // Mostly short; now and then one spanning many others (a long fsync around short writes).
                long length = random.nextInt(10) == 0 ? random.nextInt(400) : random.nextInt(8);
                events.add(new IoEvent("FileWrite", start, start + length, 0, 0, "f", 1));
            }
            events.sort(Comparator.comparingLong(IoEvent::start));
            ThreadIo io = new ThreadIo(events);
            for (int q = 0; q < 200; q++) {
                long from = random.nextInt(1100) - 50;
                long to = from + random.nextInt(60);
                assertThat(io.firstOverlapping(from, to)).as("[%d, %d] in %s", from, to, events).isSameAs(walk(events, from, to));
            }
        }
    }

    @Test
    void noEventsNoOverlap() {
        assertThat(new ThreadIo(List.of()).firstOverlapping(0, Long.MAX_VALUE)).isNull();
    }

    /** What HolderAttributor did before: the first event by start that ends at or after from, if it starts by to. */
    private static IoEvent walk(List<IoEvent> byStart, long from, long to) {
        for (IoEvent e : byStart) {
            if (e.start() > to) break;
            if (e.end() >= from) return e;
        }
        return null;
    }
}
