package io.stallscope.analyzer.model;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The recorded lock events in columns: a contended broker records millions, which as {@link LockEvent} objects
 * took ~64 bytes each (570 MB for 8.8 M in issue 19's recording); here ~41, and a lock class is stored once. Read
 * as a list of {@link LockEvent}, each made when it is asked for.
 */
public final class LockEvents extends AbstractList<LockEvent> {
    private static final LockEvent.Kind[] KINDS = LockEvent.Kind.values();

    private byte[] kind = new byte[16];
    private long[] start = new long[16];
    private long[] end = new long[16];
    private int[] thread = new int[16];
    private int[] stack = new int[16];
    /** Index into {@link #classes}; -1 for none. */
    private int[] lockClass = new int[16];
    private long[] address = new long[16];
    private int[] previousOwner = new int[16];
    private int size;
    /** Events dropped by {@link #clear()}: the windows of chunks already analysed. */
    private long cleared;
    private final List<String> classes = new ArrayList<>();
    private final Map<String, Integer> classIds = new HashMap<>();
    private String lastClass;
    private int lastClassId;

    @Override
    public boolean add(LockEvent e) {
        add(e.kind(), e.start(), e.end(), e.thread(), e.stack(), e.lockClass(), e.address(), e.previousOwner());
        return true;
    }

    public void add(LockEvent.Kind k, long from, long to, int threadId, int stackId, String cls, long addr, int owner) {
        add(k, from, to, threadId, stackId, cls == null ? -1 : classId(cls), addr, owner);
    }

    /** As above with the lock class as its index ({@link #classId}, -1 for none): what a reader that caches it adds. */
    public void add(LockEvent.Kind k, long from, long to, int threadId, int stackId, int classIndex, long addr, int owner) {
        if (size == start.length) grow();
        kind[size] = (byte) k.ordinal();
        start[size] = from;
        end[size] = to;
        thread[size] = threadId;
        stack[size] = stackId;
        lockClass[size] = classIndex;
        address[size] = addr;
        previousOwner[size] = owner;
        size++;
    }

    /** The class's index, added when new (looked up first: a lambda that captures this list cost an object an event). */
    public int classId(String cls) {
        // The constant pools hand out one String per class (they cache it), and a storm's events run on a few monitors.
        if (cls == lastClass) return lastClassId;
        Integer id = classIds.get(cls);
        if (id == null) {
            id = classes.size();
            classes.add(cls);
            classIds.put(cls, id);
        }
        lastClass = cls;
        lastClassId = id;
        return id;
    }

    /**
     * Adds every event of {@code other} (a chunk's), its thread and stack ids mapped through {@code threads} and
     * {@code stacks}: column by column, without making a {@link LockEvent} of each.
     */
    public void addAll(LockEvents other, int[] threads, int[] stacks) {
        int[] classOf = new int[other.classes.size()];
        for (int c = 0; c < classOf.length; c++) {
            String name = other.classes.get(c);
            classOf[c] = classId(name);
        }
        // Room for the whole chunk at once: a check per event was a branch in the copy loop.
        while (start.length - size < other.size) grow();
        for (int i = 0; i < other.size; i++) {
            kind[size] = other.kind[i];
            start[size] = other.start[i];
            end[size] = other.end[i];
            thread[size] = mapped(threads, other.thread[i]);
            stack[size] = stacks[other.stack[i]];
            lockClass[size] = other.lockClass[i] < 0 ? -1 : classOf[other.lockClass[i]];
            address[size] = other.address[i];
            previousOwner[size] = mapped(threads, other.previousOwner[i]);
            size++;
        }
    }

    /** A thread id through the map; a negative id (none) stays as it is. */
    private static int mapped(int[] ids, int id) {
        return id < 0 ? id : ids[id];
    }

    private void grow() {
        int n = Math.max(16, start.length * 2);
        kind = Arrays.copyOf(kind, n);
        start = Arrays.copyOf(start, n);
        end = Arrays.copyOf(end, n);
        thread = Arrays.copyOf(thread, n);
        stack = Arrays.copyOf(stack, n);
        lockClass = Arrays.copyOf(lockClass, n);
        address = Arrays.copyOf(address, n);
        previousOwner = Arrays.copyOf(previousOwner, n);
    }

    @Override
    public LockEvent get(int i) {
        if (i < 0 || i >= size) throw new IndexOutOfBoundsException(i);
        return new LockEvent(KINDS[kind[i]], start[i], end[i], thread[i], stack[i],
                lockClass[i] < 0 ? null : classes.get(lockClass[i]), address[i], previousOwner[i]);
    }

    // Columns read without making a LockEvent: the analysis walks millions of events.
    public LockEvent.Kind kind(int i) {
        return KINDS[kind[i]];
    }

    public long start(int i) {
        return start[i];
    }

    public long end(int i) {
        return end[i];
    }

    public int thread(int i) {
        return thread[i];
    }

    public int stack(int i) {
        return stack[i];
    }

    /** The lock class's index among this list's classes; -1 for none. */
    public int lockClassIndex(int i) {
        return lockClass[i];
    }

    public long address(int i) {
        return address[i];
    }

    public int previousOwner(int i) {
        return previousOwner[i];
    }

    /** Forgets the events (their window of chunks is analysed) but counts them in {@link #seen()}; keeps the columns. */
    @Override
    public void clear() {
        cleared += size;
        size = 0;
    }

    /** Forgets everything, as a new list, but keeps the columns' capacity for the next chunk. */
    public void reset() {
        size = 0;
        cleared = 0;
        classes.clear();
        classIds.clear();
        lastClass = null;
    }

    /** How many events the columns hold before they grow. */
    public int capacity() {
        return start.length;
    }

    /** Every event added, including those cleared since. */
    public long seen() {
        return cleared + size;
    }

    @Override
    public int size() {
        return size;
    }
}
