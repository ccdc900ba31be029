package io.stallscope.analyzer.read;

import java.util.Arrays;

/** Open-addressing long to int map: constant-pool keys to positions or ids, without boxing. */
final class LongIntMap {
    private long[] keys = new long[64];
    private int[] values = new int[64];
    private boolean[] used = new boolean[64];
    private int size;

    int get(long key, int missing) {
        int mask = keys.length - 1;
        for (int i = hash(key) & mask; ; i = (i + 1) & mask) {
            if (!used[i]) return missing;
            if (keys[i] == key) return values[i];
        }
    }

    void put(long key, int value) {
        if (size * 2 >= keys.length) grow();
        int mask = keys.length - 1;
        int i = hash(key) & mask;
        while (used[i] && keys[i] != key) i = (i + 1) & mask;
        if (!used[i]) {
            used[i] = true;
            keys[i] = key;
            size++;
        }
        values[i] = value;
    }

    int size() {
        return size;
    }

    private void grow() {
        long[] oldKeys = keys;
        int[] oldValues = values;
        boolean[] oldUsed = used;
        keys = new long[oldKeys.length * 2];
        values = new int[oldKeys.length * 2];
        used = new boolean[oldKeys.length * 2];
        size = 0;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldUsed[i]) put(oldKeys[i], oldValues[i]);
        }
    }

    private static int hash(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }

    void clear() {
        Arrays.fill(used, false);
        size = 0;
    }
}
