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
        int n = c.count(minBytes(f));
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
                if (depth > MAX_DEPTH || t.tooCostly) throw refused(t, depth);
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
        int n = c.count(minBytes(f));
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
                if (depth > MAX_DEPTH || t.tooCostly) throw refused(t, depth);
                for (JfrType.JfrField f : t.fields) skip(c, f, depth + 1);
        }
    }

    /** Why a struct value is not read: nested past {@link #MAX_DEPTH}, or expanding past its bytes ({@link TypeCosts}). */
    private static JfrFormatException refused(JfrType t, int depth) {
        if (depth > MAX_DEPTH) return Cursor.corrupt("type " + t.name + " nested too deep");
        return Cursor.corrupt("type " + t.name + " expands to " + (t.values >= 1L << 40 ? "over 2^40" : t.values)
                + " values in " + t.minBytes + " bytes (more than " + TypeCosts.VALUES_PER_BYTE + " a byte): refused as crafted");
    }

    /**
     * The fewest bytes one element takes ({@link TypeCosts}): bounds the array's count by the data left. Elements that
     * take none would have no bound but a fixed cap, each walked for nothing: no writer makes them, they are refused.
     */
    private static int minBytes(JfrType.JfrField f) throws JfrFormatException {
        if (f.constantPool) return 1;
        int min = f.type.minBytes;
        if (min == 0) throw noBytes(f.type);
        return min;
    }

    private static JfrFormatException noBytes(JfrType t) {
        return Cursor.corrupt("array of " + t.name + ", whose values take no bytes: refused as crafted");
    }

    static long asLong(Object o) {
        return o instanceof Long l ? l : o instanceof Double d ? d.longValue() : 0;
    }
}
