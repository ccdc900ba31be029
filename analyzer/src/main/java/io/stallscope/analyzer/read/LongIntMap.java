package io.stallscope.analyzer.read;

import java.util.Arrays;

/**
 * Open-addressing long to int map: constant-pool keys to positions or ids, without boxing. Each key sits next to
 * its value in one array, so a lookup in a pool's map (built long before, out of cache by the time events look
 * their threads and stacks up) misses the cache once, not once per array.
 */
final class LongIntMap {
    /** Marks a free slot; a key equal to it is kept aside. */
    private static final long FREE = Long.MIN_VALUE;
    /** Key at 2i, value at 2i + 1. */
    private long[] table = free(64);
    private int size;
    private boolean hasFreeKey;
    private int freeKeyValue;

    int get(long key, int missing) {
        if (key == FREE) return hasFreeKey ? freeKeyValue : missing;
        long[] t = table;
        int mask = (t.length >> 1) - 1;
        for (int i = hash(key) & mask; ; i = (i + 1) & mask) {
            long k = t[2 * i];
            if (k == key) return (int) t[2 * i + 1];
            if (k == FREE) return missing;
        }
    }

    void put(long key, int value) {
        if (key == FREE) {
            if (!hasFreeKey) size++;
            hasFreeKey = true;
            freeKeyValue = value;
            return;
        }
        if (size * 4 >= table.length) grow();
        long[] t = table;
        int mask = (t.length >> 1) - 1;
        int i = hash(key) & mask;
        while (t[2 * i] != FREE && t[2 * i] != key) i = (i + 1) & mask;
        if (t[2 * i] == FREE) {
            t[2 * i] = key;
            size++;
        }
        t[2 * i + 1] = value;
    }

    int size() {
        return size;
    }

    private void grow() {
        long[] old = table;
        table = free(old.length * 2);
        size = hasFreeKey ? 1 : 0;
        for (int i = 0; i < old.length; i += 2) {
            if (old[i] != FREE) put(old[i], (int) old[i + 1]);
        }
    }

    private static long[] free(int length) {
        long[] t = new long[length];
        Arrays.fill(t, FREE);
        return t;
    }

    private static int hash(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }

    void clear() {
        Arrays.fill(table, FREE);
        size = 0;
        hasFreeKey = false;
    }
}
