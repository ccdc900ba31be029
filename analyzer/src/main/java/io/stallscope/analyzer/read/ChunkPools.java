package io.stallscope.analyzer.read;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds one chunk's metadata and indexes its constant pools (the position of each entry of the types the reader
 * looks up; the entries are decoded on first use by {@link ConstantPools}). A complete chunk says where both are;
 * in a chunk cut short they are found by a scan, and so is where its last whole event ends.
 */
final class ChunkPools {
    /** Constant-pool types kept for lookups; all others are skipped. */
    private static final List<String> KEPT = List.of("java.lang.Thread", "jdk.types.StackTrace", "jdk.types.Method",
            "java.lang.Class", "jdk.types.Symbol", "java.lang.String", "jdk.types.ThreadState",
            "jdk.types.FrameType", "jdk.types.VMOperationType");

    private final ByteBuffer buf;
    private final int base;
    private final int available;
    private final int end;
    private final MetadataCache metadata;
    private Metadata meta;
    private ConstantPools pools;
    private int eventsEnd = Integer.MAX_VALUE;
    private boolean standardStacks;

    /**
     * @param buf       the bytes of the chunk, starting at {@code base}
     * @param available how many bytes of the chunk the file holds
     * @param end       where the chunk's bytes end (its size, or {@code available} when cut short)
     */
    ChunkPools(ByteBuffer buf, int base, int available, int end, MetadataCache metadata) {
        this.buf = buf;
        this.base = base;
        this.available = available;
        this.end = end;
        this.metadata = metadata;
    }

    Metadata meta() {
        return meta;
    }

    ConstantPools pools() {
        return pools;
    }

    /** In a chunk cut short: where the last whole event ends (events past it were cut off). */
    int eventsEnd() {
        return eventsEnd;
    }

    /**
     * Whether stack traces have the usual layout (truncated, frames[method, line, bci, type]): a profiler's stack
     * pool is most of its chunk's pools, so that layout is skipped and read directly.
     */
    boolean standardStacks() {
        return standardStacks;
    }

    /** A complete chunk: the metadata and the chain of pools at the offsets its header gives. */
    void read(int metaOffset, int cpOffset) throws JfrFormatException {
        useMetadata(metaOffset);
        int offset = cpOffset;
        // Each pool event names the previous one by a negative delta; bound the walk by the chunk size too.
        for (int guard = 0; guard < end; guard++) {
            long delta = readPool(offset, false);
            if (delta == 0) return;
            long next = offset + delta;
            if (delta > 0 || next < ChunkReader.HEADER_SIZE) throw new JfrFormatException("corrupt constant pool chain");
            offset = (int) next;
        }
    }

    private void useMetadata(int metaOffset) throws JfrFormatException {
        meta = metadata.read(buf, base + metaOffset, base + end);
        pools = new ConstantPools(buf, base + available, meta);
        JfrType st = meta.byName.get("jdk.types.StackTrace");
        standardStacks = st != null && isStandardStackLayout(st);
    }

    /** Linear scan of an incomplete chunk for its metadata and constant pools; damaged pools are warned about. */
    void salvage(List<String> warnings) throws JfrFormatException {
        int pos = ChunkReader.HEADER_SIZE;
        int metaPos = -1;
        int cutPool = -1;
        List<Integer> poolPositions = new ArrayList<>();
        while (end - pos > 1) {
            Cursor c = new Cursor(buf, base + pos, base + end);
            int size;
            long type;
            try {
                size = c.varint();
                type = c.varlong();
            } catch (JfrFormatException e) {
                break;
            }
            if (size <= 0) break;
            if (size > end - pos) {
                if (type == 1) cutPool = pos;
                break;
            }
            if (type == 0) metaPos = pos;
            if (type == 1) poolPositions.add(pos);
            pos += size;
        }
        eventsEnd = pos;
        if (metaPos < 0) {
            throw new JfrFormatException("file is cut short before the recording's metadata: nothing can be read");
        }
        useMetadata(metaPos);
        for (int p : poolPositions) {
            try {
                readPool(p, false);
            } catch (JfrFormatException e) {
                warnings.add("a constant pool was damaged: " + e.getMessage());
            }
        }
        if (cutPool >= 0) {
            try {
                readPool(cutPool, true);
            } catch (JfrFormatException | RuntimeException e) {
                // Expected: the pool runs into the cut. The entries read before it are kept.
            }
        }
    }

    /**
     * Indexes one constant-pool event at {@code offset}; returns its delta to the previous one. With
     * {@code partial}, a pool cut off by the end of the file yields the entries before the cut.
     */
    private long readPool(int offset, boolean partial) throws JfrFormatException {
        Cursor c = new Cursor(buf, base + offset, base + end);
        int size = c.varint();
        if (size <= 0 || (size > end - offset && !partial)) throw new JfrFormatException("corrupt constant pool event");
        c.limit = base + offset + Math.min(size, end - offset);
        long type = c.varlong();
        if (type != 1) throw new JfrFormatException("constant pool expected, found event type " + type);
        c.varlong();
        c.varlong();
        long delta = c.varlong();
        c.varlong(); // flush flag
        int poolCount = c.count(1);
        for (int p = 0; p < poolCount; p++) {
            long typeId = c.varlong();
            JfrType t = meta.byId.get(typeId);
            if (t == null) throw new JfrFormatException("constant pool of unknown type " + typeId);
            int n = c.count(1);
            LongIntMap positions = KEPT.contains(t.name) ? pools.positionsFor(typeId) : null;
            boolean stacks = standardStacks && t.name.equals("jdk.types.StackTrace");
            for (int i = 0; i < n; i++) {
                long key = c.varlong();
                if (positions != null) positions.put(key, c.pos);
                if (stacks) skipStandardStack(c);
                else Values.skipOne(c, t, false, 0);
            }
        }
        return delta;
    }

    /** Skips a stack trace in the layout {@link #isStandardStackLayout} accepts. */
    private static void skipStandardStack(Cursor c) throws JfrFormatException {
        c.u1();
        int n = c.count(4);
        for (int i = 0; i < 4 * n; i++) c.varlong();
    }

    private static boolean isStandardStackLayout(JfrType st) {
        boolean ok = st.fields.length == 2 && st.fields[0].name.equals("truncated") && !st.fields[0].array
                && st.fields[0].type.kind == JfrType.Kind.BOOLEAN && st.fields[1].name.equals("frames") && st.fields[1].array
                && !st.fields[1].constantPool;
        if (ok) {
            JfrType.JfrField[] f = st.fields[1].type.fields;
            ok = f.length == 4 && f[0].name.equals("method") && f[0].constantPool && !f[0].array
                    && f[1].name.equals("lineNumber") && f[1].type.kind == JfrType.Kind.VARINT && !f[1].constantPool && !f[1].array
                    && f[2].name.equals("bytecodeIndex") && f[2].type.kind == JfrType.Kind.VARINT && !f[2].constantPool && !f[2].array
                    && f[3].name.equals("type") && f[3].constantPool && !f[3].array;
        }
        return ok;
    }
}
