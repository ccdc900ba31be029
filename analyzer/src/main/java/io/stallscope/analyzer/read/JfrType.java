package io.stallscope.analyzer.read;

import java.util.List;

/** One class from a chunk's metadata: an event type, a constant-pool type or a primitive. */
final class JfrType {
    /** How a value of this type is encoded inline. */
    enum Kind { BOOLEAN, BYTE, VARINT, FLOAT, DOUBLE, STRING, STRUCT }

    final long id;
    final String name;
    final String superType;
    Kind kind = Kind.STRUCT;
    JfrField[] fields = new JfrField[0];
    /** The fewest bytes a value takes, and how many values it expands to (set by {@link TypeCosts}). */
    int minBytes;
    long values;
    /** A value expands to more values than its bytes allow: reading one fails (see {@link TypeCosts}). */
    boolean tooCostly;

    JfrType(long id, String name, String superType) {
        this.id = id;
        this.name = name;
        this.superType = superType;
    }

    int field(String fieldName) {
        for (int i = 0; i < fields.length; i++) {
            if (fields[i].name.equals(fieldName)) return i;
        }
        return -1;
    }

    static Kind primitiveKind(String name) {
        switch (name) {
            case "boolean":
                return Kind.BOOLEAN;
            case "byte":
                return Kind.BYTE;
            case "char":
            case "short":
            case "int":
            case "long":
                return Kind.VARINT;
            case "float":
                return Kind.FLOAT;
            case "double":
                return Kind.DOUBLE;
            case "java.lang.String":
                return Kind.STRING;
            default:
                return null;
        }
    }

    @Override
    public String toString() {
        return name;
    }

    /** One field; {@code type} is resolved once the whole metadata is read. */
    static final class JfrField {
        final String name;
        final long typeId;
        final boolean constantPool;
        final boolean array;
        /** The unit of a @Timespan field ("TICKS", "NANOSECONDS", ...), or null. */
        String timespanUnit;
        JfrType type;

        JfrField(String name, long typeId, boolean constantPool, boolean array) {
            this.name = name;
            this.typeId = typeId;
            this.constantPool = constantPool;
            this.array = array;
        }
    }

    static List<String> names(List<JfrType> types) {
        return types.stream().map(t -> t.name).toList();
    }
}
