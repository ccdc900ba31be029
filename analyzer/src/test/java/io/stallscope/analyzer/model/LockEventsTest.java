package io.stallscope.analyzer.model;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A chunk's lock events added to the recording's, column by column, are what adding them one by one gives. */
class LockEventsTest {
    @Test
    void addAllMapsThreadsStacksAndClassesAsAddingEachWould() {
        LockEvents rec = new LockEvents();
        rec.add(LockEvent.Kind.PARK, 1, 2, 0, 0, "B", 0, -1);
        LockEvents chunk = new LockEvents();
        for (int i = 0; i < 40; i++) {
            chunk.add(i % 2 == 0 ? LockEvent.Kind.MONITOR : LockEvent.Kind.PARK, 100 + i, 200 + i, i % 3, i % 4,
                    i % 5 == 0 ? null : (i % 2 == 0 ? "A" : "B"), 0x1000L + i, i % 6 == 0 ? -1 : (i + 1) % 3);
        }
        int[] threads = {7, 8, 9};
        int[] stacks = {10, 11, 12, 13};

        LockEvents oneByOne = new LockEvents();
        oneByOne.add(rec.get(0));
        for (LockEvent e : chunk) {
            oneByOne.add(e.kind(), e.start(), e.end(), threads[e.thread()], stacks[e.stack()], e.lockClass(), e.address(),
                    e.previousOwner() < 0 ? e.previousOwner() : threads[e.previousOwner()]);
        }
        rec.addAll(chunk, threads, stacks);

        assertThat(rec).containsExactlyElementsOf(oneByOne);
        assertThat(rec.lockClassIndex(0)).isEqualTo(rec.lockClassIndex(2)).as("B is stored once");
        assertThat(rec.seen()).isEqualTo(41);
    }

    @Test
    void aResetListIsAsNewButKeepsItsColumns() {
        LockEvents chunk = new LockEvents();
        for (int i = 0; i < 100; i++) chunk.add(LockEvent.Kind.MONITOR, i, i + 1, 0, 0, "A" + i, 0x10, -1);
        int capacity = chunk.capacity();
        chunk.clear();
        chunk.reset();

        chunk.add(LockEvent.Kind.PARK, 5, 6, 1, 2, "Z", 0x20, 3);

        assertThat(chunk).containsExactly(new LockEvent(LockEvent.Kind.PARK, 5, 6, 1, 2, "Z", 0x20, 3));
        assertThat(chunk.lockClassIndex(0)).as("the classes of the chunk before are forgotten").isZero();
        assertThat(chunk.seen()).as("nor counted").isEqualTo(1);
        assertThat(chunk.capacity()).isEqualTo(capacity);
    }
}
