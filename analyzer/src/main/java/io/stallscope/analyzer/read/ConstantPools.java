package io.stallscope.analyzer.read;

import io.stallscope.analyzer.model.State;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;

/**
 * One chunk's constant pools: where each entry is (recorded in one pass over the pools) and, decoded on first use
 * and cached, what the analysis needs of them: strings, class and method names, thread states, frame types, threads.
 * A big recording repeats its pools in every chunk, so this runs thousands of times per chunk: the usual entries are
 * read field by field straight from the bytes (field positions looked up once per type), never as generic structs.
 */
final class ConstantPools {
    private final ByteBuffer buf;
    private final int limit;
    private final Metadata meta;
    private final Map<Long, LongIntMap> positions = new HashMap<>();

    private final Type strings;
    private final Type symbols;
    private final Type classes;
    private final Type methods;
    private final Type states;
    private final Type frameTypes;
    private final Type threads;
    private final Type stacks;

    /**
     * Strings of the string pool by key, decoded once: a JDK recording's jdk.FileWrite names its path by a pool
     * reference in every event (600 k events in a minute of 48 handlers appending), and decoding it per event kept a
     * String and its bytes per event, two thirds of the heap at the peak.
     */
    private final LongObjectMap<String> stringCache = new LongObjectMap<>();
    private final LongObjectMap<String> symbolCache = new LongObjectMap<>();
    private final LongObjectMap<String> classCache = new LongObjectMap<>();
    private final LongObjectMap<Method> methodCache = new LongObjectMap<>();
    private final LongObjectMap<State> stateCache = new LongObjectMap<>();
    private final LongObjectMap<Boolean> nativeTypeCache = new LongObjectMap<>();

    /** A method's name as the analysis shows it ("java.io.FileOutputStream.writeBytes", or a native symbol). */
    record Method(String name, boolean java) {
    }

    /** A thread pool entry's names and ids (0 when absent). */
    record ThreadRef(String javaName, String osName, long javaId, long osId) {
    }

    ConstantPools(ByteBuffer buf, int limit, Metadata meta) {
        this.buf = buf;
        this.limit = limit;
        this.meta = meta;
        strings = type("java.lang.String");
        symbols = type("jdk.types.Symbol");
        classes = type("java.lang.Class");
        methods = type("jdk.types.Method");
        states = type("jdk.types.ThreadState");
        frameTypes = type("jdk.types.FrameType");
        threads = type("java.lang.Thread");
        stacks = type("jdk.types.StackTrace");
    }

    /** Where entries of {@code typeId} are to be recorded, or null for a type nobody looks up. */
    LongIntMap positionsFor(long typeId) {
        return positions.computeIfAbsent(typeId, k -> new LongIntMap());
    }

    /** The entry's position, or -1 (for a type looked up now and then; the usual ones go through {@link Type}). */
    int position(JfrType t, long key) {
        if (t == null) return -1;
        LongIntMap p = positions.get(t.id);
        return p == null ? -1 : p.get(key, -1);
    }

    /** A stack trace's entry, or -1. */
    int stackPosition(long key) {
        return stacks.position(key);
    }

    /** A pool type and the positions of its fields, looked up once. */
    private final class Type {
        final JfrType type;
        final Map<String, Integer> fields = new HashMap<>();
        /** The type's entry positions, once the pools were read (null: not yet looked at, or no entries). */
        private LongIntMap entries;

        Type(JfrType type) {
            this.type = type;
        }

        int field(String name) {
            return type == null ? -1 : fields.computeIfAbsent(name, type::field);
        }

        int position(long key) {
            if (entries == null) {
                if (type == null || (entries = positions.get(type.id)) == null) return -1;
            }
            return entries.get(key, -1);
        }
    }

    private Type type(String name) {
        return new Type(meta.byName.get(name));
    }

    // ---- entries read field by field ----

    /** Reads fields 0..{@code upTo} of the struct at {@code pos}; returns a cursor at field {@code upTo}. */
    private Cursor at(Type t, int pos, int upTo) throws JfrFormatException {
        Cursor c = new Cursor(buf, pos, limit);
        JfrType.JfrField[] f = t.type.fields;
        for (int i = 0; i < upTo; i++) Values.skip(c, f[i], 0);
        return c;
    }

    /** A constant-pool reference or integer field of the struct at {@code pos}, or {@code missing}. */
    private long longField(Type t, int pos, int field, long missing) throws JfrFormatException {
        if (field < 0) return missing;
        JfrType.JfrField f = t.type.fields[field];
        if (f.array) return missing;
        Cursor c = at(t, pos, field);
        if (f.constantPool || f.type.kind == JfrType.Kind.VARINT) return c.varlong();
        if (f.type.kind == JfrType.Kind.BOOLEAN || f.type.kind == JfrType.Kind.BYTE) return c.u1();
        return missing;
    }

    /** A string field (inline, or a reference into the string pool) of the struct at {@code pos}, or null. */
    private String stringField(Type t, int pos, int field) throws JfrFormatException {
        if (field < 0) return null;
        JfrType.JfrField f = t.type.fields[field];
        if (f.array) return null;
        Cursor c = at(t, pos, field);
        if (f.constantPool) return string(c.varlong());
        if (f.type.kind != JfrType.Kind.STRING) return null;
        return resolve(c.string());
    }

    String resolve(Object s) {
        if (s instanceof String str) return str;
        if (s instanceof Cursor.PoolString ps) return string(ps.key());
        return null;
    }

    /** An entry of the string pool. */
    String string(long key) {
        String cached = stringCache.get(key);
        if (cached != null) return cached;
        int pos = strings.position(key);
        if (pos < 0) return null;
        try {
            Object s = new Cursor(buf, pos, limit).string();
            if (!(s instanceof String str)) return null; // a pool string never refers to the pool again
            stringCache.put(key, str);
            return str;
        } catch (JfrFormatException e) {
            return null;
        }
    }

    String symbol(long key) {
        String s = symbolCache.get(key);
        if (s != null) return s;
        int pos = symbols.position(key);
        if (pos < 0) return null;
        try {
            s = stringField(symbols, pos, symbols.field("string"));
        } catch (JfrFormatException e) {
            return null;
        }
        if (s != null) symbolCache.put(key, s);
        return s;
    }

    /** "java.io.FileOutputStream", or null. */
    String className(long key) {
        String s = classCache.get(key);
        if (s != null) return s;
        int pos = classes.position(key);
        if (pos < 0) return null;
        try {
            long name = longField(classes, pos, classes.field("name"), -1);
            s = name < 0 ? null : symbol(name);
        } catch (JfrFormatException e) {
            return null;
        }
        if (s == null) return null;
        s = s.replace('/', '.');
        classCache.put(key, s);
        return s;
    }

    Method method(long key) {
        Method m = methodCache.get(key);
        if (m != null) return m;
        String name = null;
        String cls = null;
        String desc = null;
        int pos = methods.position(key);
        if (pos >= 0) {
            try {
                long n = longField(methods, pos, methods.field("name"), -1);
                long type = longField(methods, pos, methods.field("type"), -1);
                long d = longField(methods, pos, methods.field("descriptor"), -1);
                name = n < 0 ? null : symbol(n);
                cls = type < 0 ? null : className(type);
                desc = d < 0 ? null : symbol(d);
            } catch (JfrFormatException e) {
                // a damaged entry: named "unknown" below
            }
        }
        // async-profiler gives native symbols the descriptor "()L;" and the library as class; JDK native Java
        // methods (FileDispatcherImpl.write0) have a real descriptor and count as Java.
        boolean java = desc != null && desc.startsWith("(") && !desc.equals("()L;") && (cls == null || !isSharedLibrary(cls));
        if (name == null) name = "unknown";
        m = new Method(java && cls != null && !cls.isEmpty() ? cls + '.' + name : name, java);
        methodCache.put(key, m);
        return m;
    }

    /** "libc.so.6", "libjvm.so": a native library, as async-profiler names a native frame's "class" (ends in .so(.N)*). */
    static boolean isSharedLibrary(String cls) {
        int i = cls.lastIndexOf(".so");
        if (i < 0) return false;
        // Only version parts may follow: ".6", ".1.2.3" (what follows holds no 's', so the last ".so" is the one).
        for (i += 3; i < cls.length(); ) {
            if (cls.charAt(i) != '.' || i + 1 == cls.length() || !isDigit(cls.charAt(i + 1))) return false;
            i++;
            while (i < cls.length() && isDigit(cls.charAt(i))) i++;
        }
        return true;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    /** A thread state, by its name (each producer numbers its states its own way). */
    State state(long key) {
        State s = stateCache.get(key);
        if (s != null) return s;
        int pos = states.position(key);
        String name = null;
        if (pos >= 0) {
            try {
                name = stringField(states, pos, states.field("name"));
            } catch (JfrFormatException e) {
                // unknown below
            }
        }
        s = State.fromName(name);
        stateCache.put(key, s);
        return s;
    }

    /** async-profiler marks C, C++ and kernel frames by frame type; those are not Java methods. */
    boolean nativeFrameType(long key) {
        Boolean b = nativeTypeCache.get(key);
        if (b != null) return b;
        int pos = frameTypes.position(key);
        String d = null;
        if (pos >= 0) {
            try {
                d = stringField(frameTypes, pos, frameTypes.field("description"));
            } catch (JfrFormatException e) {
                // not native below
            }
        }
        b = d != null && (d.equals("C++") || d.equals("Kernel") || d.equals("C"));
        nativeTypeCache.put(key, b);
        return b;
    }

    /** A thread pool entry, or null when the pool does not have it. */
    ThreadRef thread(long key) {
        int pos = threads.position(key);
        if (pos < 0) return null;
        try {
            return new ThreadRef(stringField(threads, pos, threads.field("javaName")),
                    stringField(threads, pos, threads.field("osName")),
                    longField(threads, pos, threads.field("javaThreadId"), 0),
                    longField(threads, pos, threads.field("osThreadId"), 0));
        } catch (JfrFormatException e) {
            return new ThreadRef(null, null, 0, 0);
        }
    }

    /** Any entry as a generic struct (Object[] per field; see {@link Values}), for the rare layouts. */
    Object struct(String typeName, long key) {
        JfrType t = meta.byName.get(typeName);
        int pos = position(t, key);
        if (pos < 0) return null;
        try {
            return Values.readOne(new Cursor(buf, pos, limit), t, false, 0);
        } catch (JfrFormatException e) {
            return null;
        }
    }

    /** Pool keys to decoded entries, without boxing the keys: an index in {@link LongIntMap}, the entries in a list. */
    static final class LongObjectMap<V> {
        private final LongIntMap index = new LongIntMap();
        private final ArrayList<V> values = new ArrayList<>();

        V get(long key) {
            int i = index.get(key, -1);
            return i < 0 ? null : values.get(i);
        }

        /** Only for a key not yet in the map (entries are decoded once). */
        void put(long key, V value) {
            index.put(key, values.size());
            values.add(value);
        }
    }
}
