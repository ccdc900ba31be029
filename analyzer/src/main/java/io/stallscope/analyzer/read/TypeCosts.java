package io.stallscope.analyzer.read;

import java.util.Collection;
import java.util.HashSet;
import java.util.Set;

/**
 * Bounds the work of reading a value by the bytes it takes, once per metadata. Nesting depth alone does not: 32 levels
 * of three fields each, ending in a struct without fields, make one value of no bytes 3^32 values to walk. So each
 * type gets the fewest bytes a value of it takes and the values its inline fields expand to (an array or a pool
 * reference counts as one: its elements are read from bytes of their own), and a type that expands to more than
 * {@link #VALUES_PER_BYTE} values per byte it takes is marked: reading one fails (see {@link Values}). Types nobody
 * reads cost nothing.
 */
final class TypeCosts {
    /**
     * Real types take a byte or more per value, but for structs whose fields are structs: a chain of 32 single-field
     * structs (the deepest nesting {@link Values} reads) is 33 values for one byte.
     */
    static final long VALUES_PER_BYTE = 64;
    /** Counts stop growing here: the cap on any type is below it, and a sum of a few of them cannot overflow. */
    private static final long SATURATED = 1L << 40;
    /** Struct inside struct, this deep, is no recording's (Values reads 32 levels); the walk stays off the stack's end. */
    private static final int MAX_CHAIN = 256;

    private final Set<JfrType> done = new HashSet<>();
    private final Set<JfrType> visiting = new HashSet<>();

    private TypeCosts() {
    }

    /** Sets {@link JfrType#minBytes}, {@link JfrType#values} and {@link JfrType#tooCostly} of every type. */
    static void compute(Collection<JfrType> types) throws JfrFormatException {
        TypeCosts costs = new TypeCosts();
        for (JfrType t : types) costs.visit(t, 0);
    }

    private void visit(JfrType t, int depth) throws JfrFormatException {
        if (done.contains(t)) return;
        if (depth > MAX_CHAIN) throw Cursor.corrupt("metadata nests types more than " + MAX_CHAIN + " deep");
        if (!visiting.add(t)) {
            // A struct inside itself, not through an array: it never ends (Values fails on it by depth).
            t.values = SATURATED;
            return;
        }
        long minBytes;
        long values;
        switch (t.kind) {
            case FLOAT -> {
                minBytes = 4;
                values = 1;
            }
            case DOUBLE -> {
                minBytes = 8;
                values = 1;
            }
            case STRUCT -> {
                minBytes = 0;
                values = 1;
                for (JfrType.JfrField f : t.fields) {
                    if (f.array || f.constantPool) {
                        // The count or the reference takes a byte; array elements are costed as types of their own
                        // (from compute's loop: a type may hold an array of itself).
                        minBytes++;
                        values++;
                        continue;
                    }
                    visit(f.type, depth + 1);
                    minBytes = Math.min(SATURATED, minBytes + f.type.minBytes);
                    values = Math.min(SATURATED, values + f.type.values);
                }
            }
            default -> { // boolean, byte, integers, strings
                minBytes = 1;
                values = 1;
            }
        }
        visiting.remove(t);
        if (t.values != SATURATED) t.values = values;
        t.minBytes = (int) Math.min(Integer.MAX_VALUE, minBytes);
        t.tooCostly = t.values > VALUES_PER_BYTE * Math.max(1, t.minBytes);
        done.add(t);
    }
}
