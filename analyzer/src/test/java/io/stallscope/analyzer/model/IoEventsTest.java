package io.stallscope.analyzer.model;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The columns give back every event as it was added, in order, past the growth of the arrays. */
class IoEventsTest {
    @Test
    void givesBackWhatWasAdded() {
        Random random = new Random(7);
        String[] types = {"FileWrite", "FileRead", "FileForce", "SocketRead", "SocketWrite"};
        String[] targets = {"/data/a.log", "/data/b.index", null, "broker-2:9092", ""};
        List<IoEvent> added = new ArrayList<>();
        IoEvents io = new IoEvents();
        for (int i = 0; i < 5000; i++) {
            long start = random.nextLong();
            IoEvent e = new IoEvent(types[random.nextInt(types.length)], start, start + random.nextInt(1_000_000),
                    random.nextInt(50) - 1, random.nextInt(1000), targets[random.nextInt(targets.length)], random.nextLong());
            added.add(e);
            if (i % 2 == 0) io.add(e);
            // an equal target that is another String: kept once all the same
            else io.add(e.type(), e.start(), e.end(), e.thread(), e.stack(), e.target() == null ? null : new String(e.target()), e.bytes());
        }
        assertThat(io.size()).isEqualTo(added.size());
        List<IoEvent> back = new ArrayList<>();
        io.forEach(back::add);
        assertThat(back).isEqualTo(added);
        for (int i = 0; i < added.size(); i++) {
            IoEvent e = added.get(i);
            assertThat(io.get(i)).isEqualTo(e);
            assertThat(io.type(i)).isEqualTo(e.type());
            assertThat(io.start(i)).isEqualTo(e.start());
            assertThat(io.end(i)).isEqualTo(e.end());
            assertThat(io.thread(i)).isEqualTo(e.thread());
            assertThat(io.stack(i)).isEqualTo(e.stack());
            assertThat(io.target(i)).isEqualTo(e.target());
            assertThat(io.bytes(i)).isEqualTo(e.bytes());
        }
    }

    @Test
    void typeNumbersNameTheTypes() {
        Random random = new Random(11);
        String[] types = {"FileWrite", "FileRead", "FileForce", "SocketRead", "SocketWrite"};
        IoEvents io = new IoEvents();
        for (int i = 0; i < 1000; i++) io.add(types[random.nextInt(types.length)], i, i + 1, 0, 0, null, 0);
        assertThat(io.typeCount()).isEqualTo(types.length);
        for (int i = 0; i < io.size(); i++) {
            int n = io.typeNumber(i);
            assertThat(n).isBetween(0, io.typeCount() - 1);
            assertThat(io.typeName(n)).isEqualTo(io.type(i));
            assertThat(io.typeNumber(io.type(i))).isEqualTo(n);
        }
        assertThat(io.typeNumber("SocketConnect")).as("no event of it").isEqualTo(-1);
        IoEvents merged = new IoEvents();
        merged.add("SocketRead", 0, 1, 0, 0, null, 0);
        merged.addAll(io, new int[] {0}, new int[] {0});
        for (int i = 0; i < merged.size(); i++) assertThat(merged.typeName(merged.typeNumber(i))).isEqualTo(merged.type(i));
    }

    @Test
    void equalWhenTheSameEventsInTheSameOrder() {
        IoEvents a = new IoEvents();
        IoEvents b = new IoEvents();
        assertThat(a).isEqualTo(b).isEmpty();
        a.add("FileWrite", 1, 2, 0, 3, "/x", 10);
        a.add("FileForce", 2, 5, 0, 4, "/x", 0);
        b.add("FileWrite", 1, 2, 0, 3, new String("/x"), 10);
        assertThat(a).isNotEqualTo(b);
        b.add("FileForce", 2, 5, 0, 4, "/x", 0);
        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
    }

    @Test
    void reservingKeepsTheEvents() {
        IoEvents io = new IoEvents();
        for (int chunk = 0; chunk < 50; chunk++) {
            io.reserve(chunk * 7);
            for (int i = 0; i < chunk * 7; i++) io.add("FileWrite", chunk, chunk + i, chunk, i, "/c" + chunk, i);
        }
        io.reserve(0);
        int n = 0;
        for (int chunk = 0; chunk < 50; chunk++) {
            for (int i = 0; i < chunk * 7; i++, n++) assertThat(io.get(n)).isEqualTo(new IoEvent("FileWrite", chunk, chunk + i, chunk, i, "/c" + chunk, i));
        }
        assertThat(io.size()).isEqualTo(n);
    }

    @Test
    void addingAChunkRenumbersItsThreadsAndStacks() {
        IoEvents rec = new IoEvents();
        rec.add("FileRead", 1, 2, 0, 1, "/b", 5);
        IoEvents chunk = new IoEvents();
        chunk.add("FileWrite", 10, 20, 0, 1, "/a", 100);
        chunk.add("FileForce", 11, 21, 1, 2, null, 0);
        chunk.add("FileRead", 12, 22, -1, 0, "/b", 7);
        rec.addAll(chunk, new int[] {5, 6}, new int[] {0, 40, 41});
        assertThat(rec).containsExactly(new IoEvent("FileRead", 1, 2, 0, 1, "/b", 5),
                new IoEvent("FileWrite", 10, 20, 5, 40, "/a", 100), new IoEvent("FileForce", 11, 21, 6, 41, null, 0),
                new IoEvent("FileRead", 12, 22, -1, 0, "/b", 7));
    }

    /** Type numbers are kept in a byte: the 129th to 256th type must still name itself, read apart or merged. */
    @Test
    void moreThan128TypesKeepTheirNames() {
        IoEvents chunk = new IoEvents();
        for (int t = 0; t < 200; t++) chunk.add("Type" + t, t, t + 1, 0, 0, null, t);
        IoEvents rec = new IoEvents();
        rec.addAll(chunk, new int[] {0}, new int[] {0});
        for (int t = 0; t < 200; t++) {
            assertThat(chunk.type(t)).isEqualTo("Type" + t);
            assertThat(rec.type(t)).isEqualTo("Type" + t);
            assertThat(rec.typeName(rec.typeNumber(t))).isEqualTo("Type" + t);
        }
    }

    /**
     * Retaining from a number on keeps the events before it as they were and, of the rest, those the predicate takes,
     * in their order, with their types and targets; the predicate sees each event once, in order, at its number.
     */
    @Test
    void retainKeepsWhatThePredicateTakesInOrder() {
        Random random = new Random(13);
        String[] types = {"FileWrite", "FileRead", "FileForce", "SocketRead", "SocketWrite"};
        String[] targets = {"/data/a.log", "/data/b.index", null, "broker-2:9092"};
        List<IoEvent> added = new ArrayList<>();
        IoEvents io = new IoEvents();
        for (int i = 0; i < 3000; i++) {
            long start = random.nextInt(1_000_000);
            IoEvent e = new IoEvent(types[random.nextInt(types.length)], start, start + random.nextInt(50_000),
                    random.nextInt(20) - 1, random.nextInt(100), targets[random.nextInt(targets.length)], i);
            added.add(e);
            io.add(e);
        }
        int from = 1000;
        List<Integer> asked = new ArrayList<>();
        int gone = io.retain(from, i -> {
            asked.add(i);
            // the event asked about is still at its number: its bytes are its number in the order added
            assertThat(io.get(i)).isEqualTo(added.get(i));
            return io.type(i).equals("FileForce") || io.end(i) - io.start(i) >= 40_000;
        });
        List<IoEvent> expected = new ArrayList<>(added.subList(0, from));
        for (IoEvent e : added.subList(from, added.size())) {
            if (e.type().equals("FileForce") || e.end() - e.start() >= 40_000) expected.add(e);
        }
        assertThat(asked).hasSize(added.size() - from).isSorted().doesNotHaveDuplicates().startsWith(from);
        assertThat(gone).isEqualTo(added.size() - expected.size()).isPositive();
        assertThat(io.size()).isEqualTo(expected.size());
        assertThat(io.seen()).isEqualTo(added.size());
        List<IoEvent> back = new ArrayList<>();
        io.forEach(back::add);
        assertThat(back).isEqualTo(expected);
        for (int i = 0; i < io.size(); i++) {
            assertThat(io.typeName(io.typeNumber(i))).isEqualTo(expected.get(i).type());
            assertThat(io.typeNumber(io.type(i))).isEqualTo(io.typeNumber(i));
        }
        // Types with no event left keep their numbers, and events added after name them as before.
        io.trimToSize();
        int writes = io.typeNumber("SocketWrite");
        io.add("SocketWrite", 5, 6, 0, 0, "broker-2:9092", 1);
        IoEvents chunk = new IoEvents();
        chunk.add("FileRead", 7, 8, 0, 0, "/data/a.log", 2);
        io.addAll(chunk, new int[] {3}, new int[] {0});
        assertThat(io.typeNumber(io.size() - 2)).isEqualTo(writes);
        assertThat(io.get(io.size() - 2)).isEqualTo(new IoEvent("SocketWrite", 5, 6, 0, 0, "broker-2:9092", 1));
        assertThat(io.get(io.size() - 1)).isEqualTo(new IoEvent("FileRead", 7, 8, 3, 0, "/data/a.log", 2));
        assertThat(io.seen()).isEqualTo(added.size() + 2);
    }

    @Test
    void retainingNothingOrEverything() {
        IoEvents io = new IoEvents();
        for (int i = 0; i < 100; i++) io.add("FileWrite", i, i + 1, 0, 0, "/x", i);
        assertThat(io.retain(100, i -> false)).isZero();
        assertThat(io.retain(0, i -> true)).isZero();
        assertThat(io.size()).isEqualTo(100);
        assertThat(io.retain(40, i -> false)).isEqualTo(60);
        assertThat(io.size()).isEqualTo(40);
        assertThat(io.get(39)).isEqualTo(new IoEvent("FileWrite", 39, 40, 0, 0, "/x", 39));
        assertThat(io.retain(0, i -> false)).isEqualTo(40);
        assertThat(io).isEmpty();
        io.trimToSize();
        io.add("FileWrite", 1, 2, 0, 0, "/x", 1);
        assertThat(io.size()).isEqualTo(1);
        assertThat(io.seen()).isEqualTo(101);
        assertThatThrownBy(() -> io.retain(2, i -> true)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void outOfRangeIsAnError() {
        IoEvents io = new IoEvents();
        io.add("FileWrite", 1, 2, 0, 0, null, 1);
        assertThat(io.target(0)).isNull();
        assertThatThrownBy(() -> io.start(1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> io.get(-1)).isInstanceOf(IndexOutOfBoundsException.class);
    }
}
