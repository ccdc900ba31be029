package io.stallscope.analyzer.read;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes small JFR chunks by hand, for layouts no profiler here produces on demand: a jfrsync-like pair of
 * chunks with different tick bases, events with extra fields, the Stallscope agent's events, a field of a
 * type the metadata never defines. The encoding follows the JFR 2.0 chunk format the reader implements.
 */
final class TinyJfr {
    static final long LONG = 1, INT = 2, STRING = 3, BOOLEAN = 4, THREAD = 5, STACK = 6, FRAME = 7, METHOD = 8,
            CLASS = 9, SYMBOL = 10, FRAME_TYPE = 11, STATE = 12, TIMESPAN = 13, TIMESTAMP = 14;
    static final long EXEC = 100, MONITOR = 101, APPEND = 102, FLUSH = 103, SNAPSHOT_WRITE = 104, FILE_WRITE = 105;
    /** The first of the types {@link #fanOutDepth} declares. */
    static final long FAN = 200;
    private static final long DESCRIPTOR = 999_999;

    final long startNanos;
    final long startTicks;
    final long ticksPerSecond;
    private final ByteArrayOutputStream events = new ByteArrayOutputStream();
    private final Map<Long, String> threads = new LinkedHashMap<>();
    private final List<String[]> frames = new ArrayList<>();
    /** Adds a field "contextId" to jdk.ExecutionSample, as a profiler fork does. */
    boolean extraField;
    /** Declares a field whose type the metadata does not define. */
    boolean unknownFieldType;
    /** Monitor-enter events get a trailing string field, as a producer may add: not all varints, so the generic path reads them. */
    boolean monitorNote;
    /**
     * Declares types fan.T0..fan.T{n} (each of three fields of the next type, the last empty) and puts one T0 entry in the
     * constant pool: an entry of no bytes that expands to 3^n values, as a hostile file may declare.
     */
    int fanOutDepth;

    TinyJfr(long startNanos, long startTicks, long ticksPerSecond) {
        this.startNanos = startNanos;
        this.startTicks = startTicks;
        this.ticksPerSecond = ticksPerSecond;
    }

    long ticks(long nanosFromStart) {
        return startTicks + nanosFromStart * ticksPerSecond / 1_000_000_000L;
    }

    void thread(long id, String name) {
        threads.put(id, name);
    }

    /** Method names, top first; all frames are Java frames of class demo.Broker. Returns the stack id. */
    int stack(String... methods) {
        frames.add(methods);
        return frames.size();
    }

    void sample(long atNanos, long thread, int stack, boolean sleeping) {
        Buf b = new Buf();
        b.varlong(EXEC).varlong(ticks(atNanos)).varlong(thread).varlong(stack).varlong(sleeping ? 2 : 1);
        if (extraField) b.varlong(42);
        event(b);
    }

    void monitorEnter(long atNanos, long durationNanos, long thread, int stack, long previousOwner) {
        monitorEnter(atNanos, durationNanos, thread, stack, previousOwner, 0xabc0);
    }

    /** A wait for the monitor at {@code address}; stack 0 is an event without a stack trace. */
    void monitorEnter(long atNanos, long durationNanos, long thread, int stack, long previousOwner, long address) {
        Buf b = new Buf();
        b.varlong(MONITOR).varlong(ticks(atNanos)).varlong(durationNanos * ticksPerSecond / 1_000_000_000L)
                .varlong(thread).varlong(stack).varlong(1).varlong(previousOwner).varlong(address);
        if (monitorNote) b.string("note");
        event(b);
    }

    /** A monitor-enter event whose size says {@code shortBy} bytes fewer than its fields take: they run past it. */
    void monitorEnterOverrunning(long atNanos, long thread, int stack, int shortBy) {
        Buf b = new Buf();
        b.varlong(MONITOR).varlong(ticks(atNanos)).varlong(1_000L * ticksPerSecond / 1_000_000_000L)
                .varlong(thread).varlong(stack).varlong(1).varlong(0).varlong(0xabc0);
        byte[] body = b.bytes();
        Buf e = new Buf();
        // Under 127 bytes, the size is one byte whatever it says.
        e.varlong(body.length + 1 - shortBy).raw(body);
        events.writeBytes(e.bytes());
    }

    /** A stallscope.RecordsAppend event committed at {@code endNanos} for an op of {@code opNanos}. */
    void append(long endNanos, long thread, long opNanos, String topic, int partition) {
        op(APPEND, endNanos, thread, opNanos, "records_append", "request_handler", topic, partition, 1024, "/kafka/" + topic + "-" + partition, false);
    }

    /**
     * A Stallscope agent event, laid out as the agent's OpEvent declares its fields (the JFR header fields, then
     * op, opDuration, threadRole, topic, partition, bytes, path, failed), committed at {@code endNanos}.
     */
    void op(long type, long endNanos, long thread, long opNanos, String op, String role, String topic, int partition,
            long bytes, String path, boolean failed) {
        Buf b = new Buf();
        b.varlong(type).varlong(ticks(endNanos)).varlong(0).varlong(thread).varlong(0)
                .string(op).varlong(opNanos).string(role).string(topic).varlong(partition).varlong(bytes).string(path)
                .u1(failed ? 1 : 0);
        event(b);
    }

    /**
     * A stallscope.SnapshotWrite event of an agent that writes the "blocked behind" fields after the others (issue 41):
     * behindOp, behindThread, behindOverlapMs, scope.
     */
    void opBehind(long endNanos, long thread, long opNanos, String topic, int partition, String behindOp, String behindThread,
                  long behindOverlapMs, String scope) {
        Buf b = new Buf();
        b.varlong(SNAPSHOT_WRITE).varlong(ticks(endNanos)).varlong(0).varlong(thread).varlong(0)
                .string("snapshot_write").varlong(opNanos).string("request_handler").string(topic).varlong(partition).varlong(-1)
                .string("/kafka/" + topic + "-" + partition + "/00000000000000000000.snapshot").u1(0)
                .string(behindOp).string(behindThread).varlong(behindOverlapMs).string(scope);
        event(b);
    }

    /** How {@link #fileWrite} writes its path: each of JFR's string encodings. */
    enum PathAs { UTF8, LATIN1, CHARS, NULL, EMPTY, POOL }

    /** Strings written as references into the chunk's string pool, by key (from 1). */
    private final List<String> pooledStrings = new ArrayList<>();

    /** A jdk.FileWrite event as the JDK lays it out (the header fields, path, bytesWritten). */
    void fileWrite(long atNanos, long durationNanos, long thread, int stack, String path, PathAs as, long bytes) {
        Buf b = new Buf();
        b.varlong(FILE_WRITE).varlong(ticks(atNanos)).varlong(durationNanos * ticksPerSecond / 1_000_000_000L).varlong(thread)
                .varlong(stack);
        switch (as) {
            case UTF8 -> b.string(path);
            case LATIN1 -> {
                byte[] l = path.getBytes(StandardCharsets.ISO_8859_1);
                b.u1(5).varlong(l.length).raw(l);
            }
            case CHARS -> {
                b.u1(4).varlong(path.length());
                for (char c : path.toCharArray()) b.varlong(c);
            }
            case NULL -> b.u1(0);
            case EMPTY -> b.u1(1);
            case POOL -> {
                int key = pooledStrings.indexOf(path);
                if (key < 0) {
                    pooledStrings.add(path);
                    key = pooledStrings.size() - 1;
                }
                b.u1(2).varlong(key + 1);
            }
            default -> throw new IllegalArgumentException(as.toString());
        }
        b.varlong(bytes);
        event(b);
    }

    private void event(Buf body) {
        byte[] bytes = body.bytes();
        Buf e = new Buf();
        e.sizePrefixed(bytes);
        events.writeBytes(e.bytes());
    }

    byte[] chunk() {
        Buf chunk = new Buf();
        chunk.raw(new byte[68]);
        chunk.raw(events.toByteArray());
        int metaOffset = chunk.size();
        chunk.raw(metadataEvent());
        int cpOffset = chunk.size();
        chunk.raw(poolEvent());
        ByteBuffer h = ByteBuffer.wrap(chunk.out.toByteArray());
        h.putInt(0, 0x464c5200).putShort(4, (short) 2).putShort(6, (short) 0).putLong(8, h.capacity())
                .putLong(16, cpOffset).putLong(24, metaOffset).putLong(32, startNanos).putLong(40, 1_000_000_000L)
                .putLong(48, startTicks).putLong(56, ticksPerSecond).putInt(64, 1);
        return h.array();
    }

    private byte[] poolEvent() {
        Buf b = new Buf();
        b.varlong(1).varlong(startTicks).varlong(0).varlong(0).varlong(1);
        b.varlong((fanOutDepth > 0 ? 8 : 7) + (pooledStrings.isEmpty() ? 0 : 1)); // pools
        if (!pooledStrings.isEmpty()) {
            b.varlong(STRING).varlong(pooledStrings.size());
            for (int i = 0; i < pooledStrings.size(); i++) b.varlong(i + 1).string(pooledStrings.get(i));
        }
        if (fanOutDepth > 0) b.varlong(FAN).varlong(1).varlong(1); // one entry, key 1, no bytes of its own
        b.varlong(THREAD).varlong(threads.size());
        threads.forEach((id, name) -> b.varlong(id).string(name).varlong(id + 1000).string(name).varlong(id));
        b.varlong(STACK).varlong(frames.size());
        int methodId = 0;
        for (int i = 0; i < frames.size(); i++) {
            String[] f = frames.get(i);
            b.varlong(i + 1).u1(0).varlong(f.length);
            for (String ignored : f) b.varlong(++methodId).varlong(10 + methodId).varlong(0).varlong(1);
        }
        b.varlong(METHOD).varlong(methodId);
        int m = 0;
        List<String> symbols = new ArrayList<>();
        for (String[] f : frames) {
            for (String name : f) {
                m++;
                symbols.add(name);
                b.varlong(m).varlong(1).varlong(symbols.size() + 1).varlong(DESCRIPTOR).varlong(0).u1(0);
            }
        }
        b.varlong(CLASS).varlong(1).varlong(1).varlong(1).varlong(0);
        b.varlong(SYMBOL).varlong(symbols.size() + 2);
        b.varlong(1).string("demo/Broker");
        b.varlong(DESCRIPTOR).string("()V");
        for (int i = 0; i < symbols.size(); i++) b.varlong(i + 2).string(symbols.get(i));
        b.varlong(FRAME_TYPE).varlong(1).varlong(1).string("Interpreted");
        b.varlong(STATE).varlong(2).varlong(1).string("STATE_RUNNABLE").varlong(2).string("STATE_SLEEPING");
        Buf e = new Buf();
        e.sizePrefixed(b.bytes());
        return e.bytes();
    }

    private byte[] metadataEvent() {
        List<String> strings = new ArrayList<>();
        Element root = new Element("root");
        Element meta = new Element("metadata");
        root.child(meta);
        root.child(new Element("region").attr("locale", "en_US"));
        meta.child(type(LONG, "long"));
        meta.child(type(INT, "int"));
        meta.child(type(STRING, "java.lang.String"));
        meta.child(type(BOOLEAN, "boolean"));
        meta.child(type(TIMESPAN, "jdk.jfr.Timespan").attr("superType", "java.lang.annotation.Annotation")
                .child(field("value", STRING, false, false)));
        meta.child(type(TIMESTAMP, "jdk.jfr.Timestamp").attr("superType", "java.lang.annotation.Annotation")
                .child(field("value", STRING, false, false)));
        meta.child(type(THREAD, "java.lang.Thread").child(field("osName", STRING, false, false))
                .child(field("osThreadId", LONG, false, false)).child(field("javaName", STRING, false, false))
                .child(field("javaThreadId", LONG, false, false)));
        meta.child(type(STACK, "jdk.types.StackTrace").child(field("truncated", BOOLEAN, false, false))
                .child(field("frames", FRAME, false, true)));
        meta.child(type(FRAME, "jdk.types.StackFrame").child(field("method", METHOD, true, false))
                .child(field("lineNumber", INT, false, false)).child(field("bytecodeIndex", INT, false, false))
                .child(field("type", FRAME_TYPE, true, false)));
        meta.child(type(METHOD, "jdk.types.Method").child(field("type", CLASS, true, false))
                .child(field("name", SYMBOL, true, false)).child(field("descriptor", SYMBOL, true, false))
                .child(field("modifiers", INT, false, false)).child(field("hidden", BOOLEAN, false, false)));
        meta.child(type(CLASS, "java.lang.Class").child(field("name", SYMBOL, true, false))
                .child(field("modifiers", INT, false, false)));
        meta.child(type(SYMBOL, "jdk.types.Symbol").child(field("string", STRING, false, false)));
        meta.child(type(FRAME_TYPE, "jdk.types.FrameType").child(field("description", STRING, false, false)));
        meta.child(type(STATE, "jdk.types.ThreadState").child(field("name", STRING, false, false)));
        Element exec = type(EXEC, "jdk.ExecutionSample").attr("superType", "jdk.jfr.Event")
                .child(field("startTime", LONG, false, false).child(annotation(TIMESTAMP, "TICKS")))
                .child(field("sampledThread", THREAD, true, false)).child(field("stackTrace", STACK, true, false))
                .child(field("state", STATE, true, false));
        if (extraField) exec.child(field("contextId", LONG, false, false));
        if (unknownFieldType) exec.child(field("mystery", 999, false, false));
        meta.child(exec);
        Element monitor = type(MONITOR, "jdk.JavaMonitorEnter").attr("superType", "jdk.jfr.Event")
                .child(field("startTime", LONG, false, false)).child(field("duration", LONG, false, false)
                        .child(annotation(TIMESPAN, "TICKS")))
                .child(field("eventThread", THREAD, true, false)).child(field("stackTrace", STACK, true, false))
                .child(field("monitorClass", CLASS, true, false)).child(field("previousOwner", THREAD, true, false))
                .child(field("address", LONG, false, false));
        if (monitorNote) monitor.child(field("note", STRING, false, false));
        meta.child(monitor);
        meta.child(opEvent(APPEND, "stallscope.RecordsAppend"));
        meta.child(type(FILE_WRITE, "jdk.FileWrite").attr("superType", "jdk.jfr.Event")
                .child(field("startTime", LONG, false, false).child(annotation(TIMESTAMP, "TICKS")))
                .child(field("duration", LONG, false, false).child(annotation(TIMESPAN, "TICKS")))
                .child(field("eventThread", THREAD, true, false)).child(field("stackTrace", STACK, true, false))
                .child(field("path", STRING, false, false)).child(field("bytesWritten", LONG, false, false)));
        for (int i = 0; i <= fanOutDepth && fanOutDepth > 0; i++) {
            Element t = type(FAN + i, "fan.T" + i);
            if (i < fanOutDepth) {
                for (String f : new String[] {"a", "b", "c"}) t.child(field(f, FAN + i + 1, false, false));
            }
            meta.child(t);
        }
        meta.child(opEvent(FLUSH, "stallscope.SegmentFlush"));
        meta.child(opEvent(SNAPSHOT_WRITE, "stallscope.SnapshotWrite")
                .child(field("behindOp", STRING, false, false)).child(field("behindThread", STRING, false, false))
                .child(field("behindOverlapMs", LONG, false, false)).child(field("scope", STRING, false, false)));
        root.collect(strings);
        Buf b = new Buf();
        b.varlong(0).varlong(startTicks).varlong(0).varlong(1);
        b.varlong(strings.size());
        for (String s : strings) b.string(s);
        root.write(b, strings);
        Buf e = new Buf();
        e.sizePrefixed(b.bytes());
        return e.bytes();
    }

    /** The agent's OpEvent schema: the JFR header fields, then its own fields in declaration order. */
    private static Element opEvent(long id, String name) {
        return type(id, name).attr("superType", "jdk.jfr.Event")
                .child(field("startTime", LONG, false, false).child(annotation(TIMESTAMP, "TICKS")))
                .child(field("duration", LONG, false, false).child(annotation(TIMESPAN, "TICKS")))
                .child(field("eventThread", THREAD, true, false)).child(field("stackTrace", STACK, true, false))
                .child(field("op", STRING, false, false))
                .child(field("opDuration", LONG, false, false).child(annotation(TIMESPAN, "NANOSECONDS")))
                .child(field("threadRole", STRING, false, false)).child(field("topic", STRING, false, false))
                .child(field("partition", INT, false, false)).child(field("bytes", LONG, false, false))
                .child(field("path", STRING, false, false)).child(field("failed", BOOLEAN, false, false));
    }

    private static Element type(long id, String name) {
        return new Element("class").attr("id", String.valueOf(id)).attr("name", name);
    }

    private static Element field(String name, long type, boolean cp, boolean array) {
        Element f = new Element("field").attr("name", name).attr("class", String.valueOf(type));
        if (cp) f.attr("constantPool", "true");
        if (array) f.attr("dimension", "1");
        return f;
    }

    private static Element annotation(long type, String value) {
        return new Element("annotation").attr("class", String.valueOf(type)).attr("value", value);
    }

    private static final class Element {
        final String name;
        final Map<String, String> attrs = new LinkedHashMap<>();
        final List<Element> children = new ArrayList<>();

        Element(String name) {
            this.name = name;
        }

        Element attr(String k, String v) {
            attrs.put(k, v);
            return this;
        }

        Element child(Element e) {
            children.add(e);
            return this;
        }

        void collect(List<String> strings) {
            add(strings, name);
            attrs.forEach((k, v) -> {
                add(strings, k);
                add(strings, v);
            });
            children.forEach(c -> c.collect(strings));
        }

        private static void add(List<String> strings, String s) {
            if (!strings.contains(s)) strings.add(s);
        }

        void write(Buf b, List<String> strings) {
            b.varlong(strings.indexOf(name)).varlong(attrs.size());
            attrs.forEach((k, v) -> b.varlong(strings.indexOf(k)).varlong(strings.indexOf(v)));
            b.varlong(children.size());
            children.forEach(c -> c.write(b, strings));
        }
    }

    /** Varint writer. */
    static final class Buf {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();

        Buf varlong(long v) {
            for (int i = 0; i < 8; i++) {
                if ((v & ~0x7fL) == 0) {
                    out.write((int) v);
                    return this;
                }
                out.write((int) (v & 0x7f) | 0x80);
                v >>>= 7;
            }
            out.write((int) v);
            return this;
        }

        Buf u1(int v) {
            out.write(v);
            return this;
        }

        Buf string(String s) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            out.write(3);
            varlong(b.length);
            out.writeBytes(b);
            return this;
        }

        Buf raw(byte[] b) {
            out.writeBytes(b);
            return this;
        }

        /** An event: its total size (including the size field itself) first. */
        void sizePrefixed(byte[] body) {
            int size = body.length + 1;
            while (varintLength(size) + body.length != size) size = varintLength(size) + body.length;
            varlong(size);
            raw(body);
        }

        private static int varintLength(long v) {
            int n = 1;
            while ((v & ~0x7fL) != 0 && n < 9) {
                v >>>= 7;
                n++;
            }
            return n;
        }

        int size() {
            return out.size();
        }

        byte[] bytes() {
            return out.toByteArray();
        }
    }
}
