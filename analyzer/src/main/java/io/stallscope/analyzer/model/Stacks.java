package io.stallscope.analyzer.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Interned stacks: arrays of frame ids, top frame first. Id 0 is the empty stack. */
public final class Stacks {
    private final Map<Key, Integer> index = new HashMap<>();
    private final List<int[]> stacks = new ArrayList<>();

    public Stacks() {
        intern(new int[0]);
    }

    public int intern(int[] frames) {
        Key k = new Key(frames);
        Integer id = index.get(k);
        if (id != null) return id;
        int n = stacks.size();
        stacks.add(frames);
        index.put(k, n);
        return n;
    }

    public int[] frames(int id) {
        return id < 0 || id >= stacks.size() ? stacks.get(0) : stacks.get(id);
    }

    public int size() {
        return stacks.size();
    }

    private record Key(int[] frames) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && Arrays.equals(frames, k.frames);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(frames);
        }
    }
}
