package io.stallscope.analyzer.read;

/**
 * A chunk's frames by (method key, line, frame type): a stack-trace pool repeats the same frames in thousands of
 * stacks, and each is named once. Open addressing over the three parts of the key, compared exactly.
 */
final class FrameIds {
    private long[] methods = new long[1024];
    private int[] lines = new int[1024];
    private long[] types = new long[1024];
    /** The frame id + 1; 0 marks a free slot. */
    private int[] ids = new int[1024];
    private int size;

    /** The frame id, or -1. */
    int get(long method, int line, long type) {
        int mask = ids.length - 1;
        for (int i = hash(method, line, type) & mask; ; i = (i + 1) & mask) {
            int id = ids[i];
            if (id == 0) return -1;
            if (methods[i] == method && lines[i] == line && types[i] == type) return id - 1;
        }
    }

    void put(long method, int line, long type, int id) {
        if (size * 2 >= ids.length) grow();
        int mask = ids.length - 1;
        int i = hash(method, line, type) & mask;
        while (ids[i] != 0 && !(methods[i] == method && lines[i] == line && types[i] == type)) i = (i + 1) & mask;
        if (ids[i] == 0) size++;
        methods[i] = method;
        lines[i] = line;
        types[i] = type;
        ids[i] = id + 1;
    }

    private void grow() {
        long[] m = methods;
        int[] l = lines;
        long[] t = types;
        int[] d = ids;
        int n = d.length * 2;
        methods = new long[n];
        lines = new int[n];
        types = new long[n];
        ids = new int[n];
        size = 0;
        for (int i = 0; i < d.length; i++) {
            if (d[i] != 0) put(m[i], l[i], t[i], d[i] - 1);
        }
    }

    private static int hash(long method, int line, long type) {
        long h = (method * 0x9E3779B97F4A7C15L) ^ (line * 0xC2B2AE3D27D4EB4FL) ^ (type * 0x165667B19E3779F9L);
        return (int) (h ^ (h >>> 29));
    }
}
