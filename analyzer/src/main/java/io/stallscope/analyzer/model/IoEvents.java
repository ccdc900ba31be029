package io.stallscope.analyzer.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * A recording's file and socket operations (jdk.FileWrite, jdk.FileForce, jdk.SocketRead...), in columns: a JDK
 * recording of busy request handlers holds hundreds of thousands of them (678 k in a minute of 48 handlers appending
 * under one lock), and an {@link IoEvent} object each, with the lists that grouped them by thread, was the largest
 * part of the heap. Types and targets are kept once each and referred to by number. {@link #get} and the iterator
 * still hand out {@link IoEvent}s, made on the way out, for code that reads few of them.
 */
public final class IoEvents implements Iterable<IoEvent> {
    private final List<String> typeNames = new ArrayList<>();
    private final Map<String, Integer> typeIds = new HashMap<>();
    private final List<String> targetNames = new ArrayList<>();
    private final Map<String, Integer> targetIds = new HashMap<>();
    private byte[] type = new byte[0];
    private long[] start = new long[0];
    private long[] end = new long[0];
    private long[] bytes = new long[0];
    private int[] thread = new int[0];
    private int[] stack = new int[0];
    /** Index into targetNames; -1 for none (null). */
    private int[] target = new int[0];
    private int size;
    /** Events {@link #retain} dropped: those of the windows of chunks already analysed that nothing reads later. */
    private long dropped;
    /**
     * The last targets added and their numbers, the latest at {@code recentAt}: a storm's events name the same file
     * one after the other, or alternate between a segment's log and index (the reader gives the same String for
     * the same path, so they compare by identity).
     */
    private final String[] recentTargets = new String[4];
    private final int[] recentTargetIds = new int[4];
    private int recentAt;
    /** The last type added and its id: a reader adds the same few constant names, millions of times. */
    private String lastType;
    private byte lastTypeId;

    public void add(IoEvent e) {
        add(e.type(), e.start(), e.end(), e.thread(), e.stack(), e.target(), e.bytes());
    }

    public void add(String type, long start, long end, int thread, int stack, String target, long bytes) {
        if (size == this.start.length) grow();
        this.type[size] = typeId(type);
        this.start[size] = start;
        this.end[size] = end;
        this.thread[size] = thread;
        this.stack[size] = stack;
        this.target[size] = targetId(target);
        this.bytes[size] = bytes;
        size++;
    }

    /**
     * Appends every event of {@code chunk} (a chunk's own, read apart), with its thread {@code t} as
     * {@code threads[t]} (-1 stays -1) and its stack {@code s} as {@code stacks[s]}: a chunk's types and targets are
     * looked up here once each, not once per event (a path compared in full for each of millions of writes).
     */
    public void addAll(IoEvents chunk, int[] threads, int[] stacks) {
        reserve(chunk.size);
        byte[] types = new byte[chunk.typeNames.size()];
        for (int i = 0; i < types.length; i++) types[i] = typeId(chunk.typeNames.get(i));
        int[] targets = new int[chunk.targetNames.size()];
        for (int i = 0; i < targets.length; i++) targets[i] = targetId(chunk.targetNames.get(i));
        for (int i = 0; i < chunk.size; i++) {
            int n = size++;
            int t = chunk.thread[i];
            int tg = chunk.target[i];
            type[n] = types[chunk.type[i] & 0xff];
            start[n] = chunk.start[i];
            end[n] = chunk.end[i];
            thread[n] = t < 0 ? t : threads[t];
            stack[n] = stacks[chunk.stack[i]];
            target[n] = tg < 0 ? -1 : targets[tg];
            bytes[n] = chunk.bytes[i];
        }
    }

    private byte typeId(String name) {
        if (name == lastType && name != null) return lastTypeId;
        Integer id = typeIds.get(name);
        if (id == null) {
            if (typeNames.size() == 256) throw new IllegalStateException("more than 256 I/O event types");
            id = typeNames.size();
            typeNames.add(name);
            typeIds.put(name, id);
        }
        lastType = name;
        lastTypeId = (byte) (int) id;
        return lastTypeId;
    }

    private int targetId(String name) {
        if (name == null) return -1;
        for (int k = 0; k < recentTargets.length; k++) {
            int r = (recentAt + k) & (recentTargets.length - 1);
            if (recentTargets[r] == name) return recentTargetIds[r];
        }
        Integer id = targetIds.get(name);
        if (id == null) {
            id = targetNames.size();
            targetNames.add(name);
            targetIds.put(name, id);
        }
        recentAt = (recentAt - 1) & (recentTargets.length - 1);
        recentTargets[recentAt] = name;
        recentTargetIds[recentAt] = id;
        return id;
    }

    /**
     * Room for {@code more} events beyond those held, in one step (a chunk's events merged into the recording's);
     * by half again at least, so that reserving chunk after chunk copies each event a bounded number of times.
     */
    public void reserve(int more) {
        if (more > 0 && size + more > start.length) resize(Math.max(size + more, start.length + (start.length >> 1)));
    }

    private void grow() {
        resize(Math.max(16, start.length + (start.length >> 1)));
    }

    private void resize(int n) {
        type = Arrays.copyOf(type, n);
        start = Arrays.copyOf(start, n);
        end = Arrays.copyOf(end, n);
        bytes = Arrays.copyOf(bytes, n);
        thread = Arrays.copyOf(thread, n);
        stack = Arrays.copyOf(stack, n);
        target = Arrays.copyOf(target, n);
    }

    /**
     * Drops, in place, the events from number {@code from} on that {@code keep} turns down, and moves the rest down
     * over them, in their order: once a window of chunks is analysed, only the few events a later step reads stay
     * (a storm's millions of short writes go). Events before {@code from} stay as they are. {@code keep} is asked
     * about each event from {@code from} on exactly once, in order, while the event is still at that number (only
     * events already asked about have been moved), so it may read the event's columns by its number and keep count
     * of what it saw. Type and target numbers stay valid: types and targets are kept even when no event is left of
     * them. The columns keep their capacity (the next window fills them again); {@link #trimToSize} gives it back.
     *
     * @return how many events were dropped
     */
    public int retain(int from, java.util.function.IntPredicate keep) {
        if (from < 0 || from > size) throw new IndexOutOfBoundsException("I/O event " + from + " of " + size);
        int n = from;
        for (int i = from; i < size; i++) {
            if (!keep.test(i)) continue;
            if (n != i) {
                type[n] = type[i];
                start[n] = start[i];
                end[n] = end[i];
                bytes[n] = bytes[i];
                thread[n] = thread[i];
                stack[n] = stack[i];
                target[n] = target[i];
            }
            n++;
        }
        int gone = size - n;
        size = n;
        dropped += gone;
        return gone;
    }

    /**
     * Empties the columns, keeping their room, and forgets the types and targets: a chunk's reader reuses those of an
     * earlier chunk, since growing them from nothing for each chunk (zeroing, page faults, copies) cost a 391 MB
     * report's readers 0.9 s.
     */
    public void reset() {
        size = 0;
        dropped = 0;
        typeNames.clear();
        typeIds.clear();
        targetNames.clear();
        targetIds.clear();
        java.util.Arrays.fill(recentTargets, null);
        recentAt = 0;
        lastType = null;
    }

    /** How many events the columns hold before they grow. */
    public int capacity() {
        return start.length;
    }

    /** Gives back the columns' room beyond the events held. */
    public void trimToSize() {
        if (start.length > size) resize(size);
    }

    /** Events added, those {@link #retain} dropped included. */
    public long seen() {
        return dropped + size;
    }

    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    /** "FileWrite", "FileForce", "SocketRead"...: the event type without its namespace. */
    public String type(int i) {
        return typeNames.get(type[check(i)] & 0xff);
    }

    /**
     * The number of event {@code i}'s type, as {@link #typeNumber(String)} gives it: code that goes through every
     * event for one type compares numbers, not the type's name per event.
     */
    public int typeNumber(int i) {
        return type[check(i)] & 0xff;
    }

    /** The number of the type named {@code name} (as {@link #type} spells it) among these events, or -1 if none has it. */
    public int typeNumber(String name) {
        Integer id = typeIds.get(name);
        return id == null ? -1 : id;
    }

    /** The name of type number {@code number}, as {@link #type} spells it. */
    public String typeName(int number) {
        return typeNames.get(number);
    }

    /** How many types the events have: every {@link #typeNumber(int)} is below it. */
    public int typeCount() {
        return typeNames.size();
    }

    public long start(int i) {
        return start[check(i)];
    }

    public long end(int i) {
        return end[check(i)];
    }

    public int thread(int i) {
        return thread[check(i)];
    }

    public int stack(int i) {
        return stack[check(i)];
    }

    /** The path or host, or null. */
    public String target(int i) {
        int t = target[check(i)];
        return t < 0 ? null : targetNames.get(t);
    }

    public long bytes(int i) {
        return bytes[check(i)];
    }

    /**
     * The numbers of the events from number {@code from} on, by thread: {@code [t]} those of thread {@code t} (below
     * {@code threads}) in the recording's order, null for a thread without any; events of no thread are left out.
     * The holders' per-window index of millions of short writes: one pass over the column, not a call per event.
     */
    public int[][] byThread(int from, int threads) {
        if (from < 0 || from > size) throw new IndexOutOfBoundsException("I/O event " + from + " of " + size);
        int[] count = new int[threads];
        int[] th = thread;
        for (int i = from; i < size; i++) {
            int t = th[i];
            if (t >= 0 && t < threads) count[t]++;
        }
        int[][] by = new int[threads][];
        for (int t = 0; t < threads; t++) {
            if (count[t] > 0) by[t] = new int[count[t]];
            count[t] = 0;
        }
        for (int i = from; i < size; i++) {
            int t = th[i];
            if (t >= 0 && t < threads) by[t][count[t]++] = i;
        }
        return by;
    }

    /** The starts of events {@code events}, in that order. */
    public long[] starts(int[] events) {
        return column(start, events);
    }

    /** The ends of events {@code events}, in that order. */
    public long[] ends(int[] events) {
        return column(end, events);
    }

    private long[] column(long[] col, int[] events) {
        long[] out = new long[events.length];
        for (int k = 0; k < events.length; k++) out[k] = col[check(events[k])];
        return out;
    }

    public IoEvent get(int i) {
        check(i);
        return new IoEvent(type(i), start[i], end[i], thread[i], stack[i], target(i), bytes[i]);
    }

    private int check(int i) {
        if (i < 0 || i >= size) throw new IndexOutOfBoundsException("I/O event " + i + " of " + size);
        return i;
    }

    @Override
    public Iterator<IoEvent> iterator() {
        return new Iterator<>() {
            private int next;

            @Override
            public boolean hasNext() {
                return next < size;
            }

            @Override
            public IoEvent next() {
                if (next >= size) throw new NoSuchElementException();
                return get(next++);
            }
        };
    }

    /** The same events in the same order. */
    @Override
    public boolean equals(Object o) {
        if (!(o instanceof IoEvents other) || other.size != size) return false;
        for (int i = 0; i < size; i++) {
            if (!get(i).equals(other.get(i))) return false;
        }
        return true;
    }

    @Override
    public int hashCode() {
        int h = size;
        for (int i = 0; i < size; i++) h = h * 31 + get(i).hashCode();
        return h;
    }

    @Override
    public String toString() {
        return size + " I/O events";
    }
}
