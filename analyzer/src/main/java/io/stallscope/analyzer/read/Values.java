package io.stallscope.analyzer.read;

/**
 * Reads or skips one value by its metadata type. Structs come back as Object[] (one slot per field),
 * arrays as Object[], constant-pool references as Long keys, integers as Long.
 */
final class Values {
    private static final int MAX_DEPTH = 32;

    private Values() {
    }

    static Object read(Cursor c, JfrType.JfrField f, int depth) throws JfrFormatException {
        if (!f.array) return readOne(c, f.type, f.constantPool, depth);
        int n = c.count(minBytes(f.type, f.constantPool));
        Object[] items = new Object[n];
        for (int i = 0; i < n; i++) items[i] = readOne(c, f.type, f.constantPool, depth);
        return items;
    }

    static Object readOne(Cursor c, JfrType t, boolean cp, int depth) throws JfrFormatException {
        if (cp) return c.varlong();
        switch (t.kind) {
            case BOOLEAN:
            case BYTE:
                return (long) c.u1();
            case VARINT:
                return c.varlong();
            case FLOAT:
                return (double) c.f4();
            case DOUBLE:
                return c.f8();
            case STRING:
                return c.string();
            default:
                if (depth > MAX_DEPTH) throw Cursor.corrupt("type " + t.name + " nested too deep");
                Object[] v = new Object[t.fields.length];
                for (int i = 0; i < v.length; i++) v[i] = read(c, t.fields[i], depth + 1);
                return v;
        }
    }

    static void skip(Cursor c, JfrType.JfrField f, int depth) throws JfrFormatException {
        if (!f.array) {
            skipOne(c, f.type, f.constantPool, depth);
            return;
        }
        int n = c.count(minBytes(f.type, f.constantPool));
        for (int i = 0; i < n; i++) skipOne(c, f.type, f.constantPool, depth);
    }

    static void skipOne(Cursor c, JfrType t, boolean cp, int depth) throws JfrFormatException {
        if (cp) {
            c.varlong();
            return;
        }
        switch (t.kind) {
            case BOOLEAN:
            case BYTE:
                c.skip(1);
                return;
            case VARINT:
                c.varlong();
                return;
            case FLOAT:
                c.skip(4);
                return;
            case DOUBLE:
                c.skip(8);
                return;
            case STRING:
                c.skipString();
                return;
            default:
                if (depth > MAX_DEPTH) throw Cursor.corrupt("type " + t.name + " nested too deep");
                for (JfrType.JfrField f : t.fields) skip(c, f, depth + 1);
        }
    }

    /**
     * The fewest bytes one element can take: bounds array counts by the data left. A struct without fields
     * takes none, so an array of them gets no bound from the data and is capped instead.
     */
    private static int minBytes(JfrType t, boolean cp) {
        if (cp || t.kind != JfrType.Kind.STRUCT || t.fields.length > 0) return 1;
        return 0;
    }

    static long asLong(Object o) {
        return o instanceof Long l ? l : o instanceof Double d ? d.longValue() : 0;
    }
}
