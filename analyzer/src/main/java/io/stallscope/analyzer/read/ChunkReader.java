package io.stallscope.analyzer.read;

import io.stallscope.analyzer.model.LockEvent;
import io.stallscope.analyzer.model.LogDir;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.SampleBlock;
import io.stallscope.analyzer.model.Safepoint;
import io.stallscope.analyzer.model.SourceFile;
import io.stallscope.analyzer.model.Span;
import io.stallscope.analyzer.model.State;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads one chunk: its header, then ({@link ChunkPools}) its metadata and constant pools (positions only,
 * decoded on first use), then its events in one streaming pass into the chunk's own threads, stacks and events. Timestamps are converted with this chunk's own tick base, which is what
 * makes jfrsync files (a JDK chunk and an async-profiler chunk, counting ticks from different origins) line up.
 */
final class ChunkReader {
    static final int HEADER_SIZE = 68;
    private static final int MAGIC = 0x464c5200; // "FLR\0"

    private final ByteBuffer buf;
    private final int base;
    private final int available;
    private final Recording rec;
    private final SourceFile file;

    private Metadata meta;
    private ConstantPools pools;
    private final LongIntMap threadIds = new LongIntMap();
    private final LongIntMap stackIds = new LongIntMap();
    private long startNanos;
    private long startTicks;
    private double nanosPerTick;
    private long durationNanos;
    /** In an incomplete chunk: where the last whole event ends (events past it were cut off). */
    private int eventsEnd = Integer.MAX_VALUE;
    /** Whether stack traces have the usual layout, read directly (see {@link ChunkPools#standardStacks}). */
    private boolean standardStacks;

    /**
     * @param buf       the bytes of this chunk (mapped), starting at {@code base}
     * @param available how many bytes of the chunk the file holds (less than its size when cut short)
     */
    /**
     * @param rec     this chunk's own threads, frames, stacks and events (merged into the recording after)
     * @param samples where the chunk's samples go, with {@code rec}'s thread and stack ids
     * @param number  this chunk's number in its file (from 1), for warnings
     */
    ChunkReader(ByteBuffer buf, int base, int available, Recording rec, SampleBlock.Builder samples, SourceFile file, int number,
                MetadataCache metadata) {
        this.metadata = metadata;
        this.buf = buf;
        this.base = base;
        this.available = available;
        this.rec = rec;
        this.samples = samples;
        this.file = file;
        this.number = number;
    }

    private final SampleBlock.Builder samples;
    private final MetadataCache metadata;

    private final int number;
    /** Whether this chunk set the sampling interval from async-profiler's "wall" setting (which wins over "interval"). */
    boolean intervalFromWall;

    static boolean hasMagic(ByteBuffer b, int pos) {
        return b.limit() - pos >= 4 && b.getInt(pos) == MAGIC;
    }

    /** Reads the chunk and returns its declared size, so the caller can find the next one. */
    long read() throws JfrFormatException {
        if (available < HEADER_SIZE) throw new JfrFormatException("file is cut short inside a chunk header");
        if (!hasMagic(buf, base)) throw new JfrFormatException("not a JFR file (no FLR magic at chunk start)");
        int major = buf.getShort(base + 4);
        if (major < 1 || major > 2) throw new JfrFormatException("unsupported JFR version " + major);
        long size = buf.getLong(base + 8);
        long cpOffset = buf.getLong(base + 16);
        long metaOffset = buf.getLong(base + 24);
        startNanos = buf.getLong(base + 32);
        durationNanos = buf.getLong(base + 40);
        startTicks = buf.getLong(base + 48);
        long ticksPerSecond = buf.getLong(base + 56);
        if (ticksPerSecond <= 0) throw new JfrFormatException("corrupt chunk header (ticks per second " + ticksPerSecond + ")");
        nanosPerTick = 1e9 / ticksPerSecond;
        if (size < HEADER_SIZE) throw new JfrFormatException("corrupt chunk header (size " + size + ")");

        int end = (int) Math.min(size, available);
        boolean complete = size <= available && cpOffset >= HEADER_SIZE && cpOffset < size
                && metaOffset >= HEADER_SIZE && metaOffset < size;
        ChunkPools found = new ChunkPools(buf, base, available, end, metadata);
        if (complete) {
            found.read((int) metaOffset, (int) cpOffset);
        } else {
            // Cut short or never finished: find whatever metadata and pools were written before the cut.
            file.warnings.add(size > available
                    ? "file is cut short: chunk " + number + " has " + available + " of " + size + " bytes; reporting what was read"
                    : "chunk " + number + " was not finished by its writer; reporting what was read");
            found.salvage(file.warnings);
        }
        meta = found.meta();
        pools = found.pools();
        eventsEnd = found.eventsEnd();
        standardStacks = found.standardStacks();
        file.chunks++;
        file.startNanos = Math.min(file.startNanos, startNanos);
        file.endNanos = Math.max(file.endNanos, startNanos + Math.max(0, durationNanos));
        if (meta.byName.keySet().stream().anyMatch(n -> n.startsWith("profiler."))) {
            file.producers.add("async-profiler");
        } else {
            file.producers.add("JDK");
        }
        readEvents(end, complete);
        return size;
    }

    // ---- events ----

    private enum Role { SAMPLE, MONITOR, PARK, IO, SPAN, LOG_DIR, SETTING, SAFEPOINT }

    private static final byte F_START = 1, F_THREAD = 2, F_STACK = 3, F_STATE = 4, F_SAMPLES = 5;
    private static final byte F_DURATION = 6, F_CLASS = 7, F_ADDRESS = 8, F_OWNER = 9;
    /** In {@link Plan#ioFields}: the target (an inline or pooled string), the byte count, and fields skipped by kind. */
    private static final byte F_TARGET = 10, F_BYTES = 11, F_SKIP_STRING = 12, F_SKIP_U1 = 13, F_SKIP_VARINT = 0;
    private static final int THREAD_CACHE = 1024;
    /** Thread key to id, direct-mapped; key 0 is no thread, so a zero slot never matches. */
    private final long[] threadCacheKey = new long[THREAD_CACHE];
    private final int[] threadCacheId = new int[THREAD_CACHE];

    /** How to read one event type: which fields matter and where they are. */
    private static final class Plan {
        final JfrType type;
        final Role role;
        final int fStart, fDuration, fThread, fStack, fState, fSamples;
        final int fClass, fOwner, fAddress, fTarget, fBytes, fName, fValue;
        final int fOp, fRole, fTopic, fPartition, fOpDuration, fPath, fFailed;
        final int fLogDir, fFileSystem, fDevice, fMountPoint;
        /** The agent's "blocked behind" fields (issue 41); -1 in events of agents without them. */
        final int fBehindOp, fBehindThread, fBehindOverlap, fScope;
        final boolean nativeSample;
        /** Where a safepoint event's fields are; null for other roles. */
        final SafepointFields safepoint;
        /** An I/O event's type without its namespace ("FileWrite"): one String for all the type's events. */
        final String ioType;
        /** Every field a varint or a pool reference (sample events): decoded by a plain loop. */
        final boolean allVarint;
        /** For a sample event whose fields are all varints: what each field is (see {@link #sampleFast}). */
        final byte[] sampleFields;
        /** Likewise for a monitor or park event (see {@link #lockFast}). */
        final byte[] lockFields;
        /**
         * For an I/O event whose fields are varints, pool references, inline strings and booleans (the JDK's): what
         * each field is (see {@link #ioFast}); null for another layout, read by {@link #decode}.
         */
        final byte[] ioFields;
        final long[] vals;
        final Object[] objs;

        Plan(JfrType t, Role role) {
            this.type = t;
            this.role = role;
            fStart = t.field("startTime");
            fDuration = t.field("duration");
            int sampled = t.field("sampledThread");
            fThread = sampled >= 0 ? sampled : t.field("eventThread");
            fStack = t.field("stackTrace");
            fState = t.field("state");
            fSamples = t.field("samples");
            fClass = t.field(role == Role.PARK ? "parkedClass" : "monitorClass");
            fOwner = t.field("previousOwner");
            fAddress = t.field("address");
            int path = t.field("path");
            fTarget = path >= 0 ? path : t.field("host");
            int bytes = t.field("bytesWritten");
            if (bytes < 0) bytes = t.field("bytesRead");
            fBytes = bytes >= 0 ? bytes : t.field("bytes");
            fName = t.field("name");
            fValue = t.field("value");
            fOp = t.field("op");
            fRole = t.field("threadRole");
            fTopic = t.field("topic");
            fPartition = t.field("partition");
            fOpDuration = t.field("opDuration");
            fPath = path;
            fFailed = t.field("failed");
            fLogDir = t.field("logDir");
            fFileSystem = t.field("fileSystem");
            fDevice = t.field("device");
            fMountPoint = t.field("mountPoint");
            fBehindOp = t.field("behindOp");
            fBehindThread = t.field("behindThread");
            fBehindOverlap = t.field("behindOverlapMs");
            fScope = t.field("scope");
            nativeSample = t.name.equals("jdk.NativeMethodSample");
            safepoint = role == Role.SAFEPOINT ? new SafepointFields(t) : null;
            ioType = t.name.substring(t.name.indexOf('.') + 1);
            boolean v = true;
            for (JfrType.JfrField f : t.fields) {
                if (f.array || !(f.constantPool || f.type.kind == JfrType.Kind.VARINT)) v = false;
            }
            allVarint = v;
            int n = t.fields.length;
            sampleFields = v && role == Role.SAMPLE
                    ? codes(n, fStart, F_START, fThread, F_THREAD, fStack, F_STACK, fState, F_STATE, fSamples, F_SAMPLES)
                    : null;
            lockFields = v && (role == Role.MONITOR || role == Role.PARK)
                    ? codes(n, fStart, F_START, fDuration, F_DURATION, fThread, F_THREAD, fStack, F_STACK, fClass, F_CLASS,
                            fAddress, F_ADDRESS, fOwner, F_OWNER)
                    : null;
            ioFields = role == Role.IO ? ioCodes(t, fStart, fDuration, fThread, fStack, fTarget, fBytes) : null;
            vals = new long[t.fields.length];
            objs = new Object[t.fields.length];
        }

        /** {@link #ioFields} of an I/O type, or null when a field is of a kind {@link #ioFast} does not read. */
        private static byte[] ioCodes(JfrType t, int fStart, int fDuration, int fThread, int fStack, int fTarget, int fBytes) {
            byte[] codes = codes(t.fields.length, fStart, F_START, fDuration, F_DURATION, fThread, F_THREAD, fStack, F_STACK,
                    fTarget, F_TARGET, fBytes, F_BYTES);
            for (int i = 0; i < codes.length; i++) {
                JfrType.JfrField f = t.fields[i];
                boolean varint = f.constantPool || f.type.kind == JfrType.Kind.VARINT;
                boolean string = !f.constantPool && f.type.kind == JfrType.Kind.STRING;
                boolean u1 = !f.constantPool && (f.type.kind == JfrType.Kind.BOOLEAN || f.type.kind == JfrType.Kind.BYTE);
                if (f.array) return null;
                if (codes[i] == F_TARGET) {
                    if (!varint && !string) return null;
                } else if (codes[i] != F_SKIP_VARINT) {
                    if (!varint) return null;
                } else if (string) {
                    codes[i] = F_SKIP_STRING;
                } else if (u1) {
                    codes[i] = F_SKIP_U1;
                } else if (!varint) {
                    return null;
                }
            }
            return codes;
        }
    }

    /** What each of {@code n} fields is, from (field index, code) pairs; a field the type lacks (-1) is skipped. */
    private static byte[] codes(int n, int... fieldAndCode) {
        byte[] codes = new byte[n];
        for (int i = 0; i < fieldAndCode.length; i += 2) {
            if (fieldAndCode[i] >= 0) codes[fieldAndCode[i]] = (byte) fieldAndCode[i + 1];
        }
        return codes;
    }

    private Plan planFor(JfrType t) {
        if (t.name == null) return null;
        switch (t.name) {
            case "jdk.ExecutionSample":
            case "jdk.NativeMethodSample":
            case "profiler.WallClockSample":
                return new Plan(t, Role.SAMPLE);
            case "jdk.JavaMonitorEnter":
                return new Plan(t, Role.MONITOR);
            case "jdk.ThreadPark":
                return new Plan(t, Role.PARK);
            case "jdk.FileRead":
            case "jdk.FileWrite":
            case "jdk.FileForce":
            case "jdk.SocketRead":
            case "jdk.SocketWrite":
                return new Plan(t, Role.IO);
            case "jdk.ActiveSetting":
                return new Plan(t, Role.SETTING);
            case LogDir.EVENT:
                // a fact about the broker, not an op: no span
                return new Plan(t, Role.LOG_DIR);
            case "jdk.SafepointBegin":
            case "jdk.SafepointStateSynchronization":
            case "jdk.SafepointEnd":
            case "jdk.ExecuteVMOperation":
            case Safepoint.AGENT_EVENT:
                // a whole-JVM stop, not an op on one thread's lane: no span
                return new Plan(t, Role.SAFEPOINT);
            default:
                return t.name.startsWith("stallscope.") ? new Plan(t, Role.SPAN) : null;
        }
    }

    private void readEvents(int end, boolean complete) throws JfrFormatException {
        Map<Long, Plan> plans = new HashMap<>();
        Map<Long, long[]> counts = new HashMap<>();
        for (JfrType t : meta.byId.values()) {
            Plan p = planFor(t);
            if (p != null) plans.put(t.id, p);
        }
        // Small type ids (all producers use them) go through an array rather than a map.
        Plan[] fast = new Plan[1024];
        long[][] fastCounts = new long[1024][];
        plans.forEach((id, p) -> {
            if (id >= 0 && id < fast.length) fast[(int) (long) id] = p;
        });
        LongIntMap bigIds = new LongIntMap();
        List<Plan> bigPlans = new ArrayList<>();
        List<long[]> bigCounts = new ArrayList<>();
        Cursor c = new Cursor(buf, 0, 0);
        c.outerLimit = base + end;
        int pos = HEADER_SIZE;
        while (pos < end) {
            c.pos = base + pos;
            c.limit = base + end;
            int size;
            long type;
            try {
                size = c.varint();
                if (size <= 0 || size > end - pos) throw new JfrFormatException("bad event size " + size);
                c.limit = base + pos + size;
                type = c.varlong();
            } catch (JfrFormatException e) {
                if (complete) throw new JfrFormatException("corrupt event at offset " + pos + ": " + e.getMessage());
                // Running into the cut was already warned about; anything earlier is damage.
                if (pos < eventsEnd) file.warnings.add("stopped at a damaged event at chunk offset " + pos);
                break;
            }
            long[] cnt;
            Plan p;
            if (type >= 0 && type < fast.length) {
                cnt = fastCounts[(int) type];
                if (cnt == null) cnt = fastCounts[(int) type] = new long[1];
                p = fast[(int) type];
            } else {
                // A JDK's Java-level events (jdk.FileWrite, jdk.SocketRead...) have big type ids: looked up without
                // boxing the id, which cost a Long or two per event (600 k file writes a minute in a handler storm).
                int slot = bigIds.get(type, -1);
                if (slot < 0) {
                    slot = bigPlans.size();
                    bigIds.put(type, slot);
                    bigPlans.add(plans.get(type));
                    bigCounts.add(counts.computeIfAbsent(type, k -> new long[1]));
                }
                cnt = bigCounts.get(slot);
                p = bigPlans.get(slot);
            }
            cnt[0]++;
            if (p != null) {
                try {
                    if (p.sampleFields != null) {
                        sampleFast(c, p);
                    } else if (p.lockFields != null) {
                        lockFast(c, p);
                    } else if (p.ioFields != null) {
                        ioFast(c, p);
                    } else {
                        decode(c, p);
                        if (p.role == Role.SAMPLE) sample(p);
                        else handle(p);
                    }
                } catch (JfrFormatException e) {
                    if (complete) {
                        throw new JfrFormatException("unreadable " + p.type.name + " event at offset " + pos
                                + " (layout does not match its metadata: " + e.getMessage() + ")");
                    }
                    file.warnings.add("stopped at a damaged " + p.type.name + " event at chunk offset " + pos);
                    break;
                }
            }
            pos += size;
        }
        countEvents(fastCounts, counts);
    }

    /**
     * Adds the chunk's events by type to the file's counts. A method of its own, so that C2 compiles it apart from
     * the event loop: its walk of the small ids failed a profile predicate (jdk.Deoptimization) once a chunk ended,
     * and the whole of {@code readEvents} was compiled again, four times in a 391 MB report, 0.3-0.4 s each.
     */
    private void countEvents(long[][] fastCounts, Map<Long, long[]> counts) {
        for (int i = 0; i < fastCounts.length; i++) {
            if (fastCounts[i] != null) counts.put((long) i, fastCounts[i]);
        }
        counts.forEach((id, n) -> {
            if (id <= 1) return; // metadata and constant pools are not events
            JfrType t = meta.byId.get(id);
            String name = t == null ? "unknown type " + id : t.name;
            file.eventCounts.merge(name, n[0], Long::sum);
        });
    }

    private void decode(Cursor c, Plan p) throws JfrFormatException {
        if (p.allVarint) {
            long[] vals = p.vals;
            for (int i = 0; i < vals.length; i++) vals[i] = c.varlong();
            return;
        }
        JfrType.JfrField[] fields = p.type.fields;
        for (int i = 0; i < fields.length; i++) {
            JfrType.JfrField f = fields[i];
            if (f.array) {
                Values.skip(c, f, 0);
                p.objs[i] = null;
            } else if (f.constantPool) {
                p.vals[i] = c.varlong();
            } else {
                switch (f.type.kind) {
                    case VARINT:
                        p.vals[i] = c.varlong();
                        break;
                    case BOOLEAN:
                    case BYTE:
                        p.vals[i] = c.u1();
                        break;
                    case STRING:
                        p.objs[i] = c.string();
                        break;
                    default:
                        p.objs[i] = Values.readOne(c, f.type, false, 0);
                }
            }
        }
    }

    private long nanos(long ticks) {
        return startNanos + (long) ((ticks - startTicks) * nanosPerTick);
    }

    private long span(Plan p, int field) {
        return field < 0 ? 0 : span(p, field, p.vals[field]);
    }

    /** Field {@code field}'s raw value {@code v} in nanoseconds. */
    private long span(Plan p, int field, long v) {
        String unit = p.type.fields[field].timespanUnit;
        if (unit == null || unit.equals("TICKS")) return (long) (v * nanosPerTick);
        switch (unit) {
            case "MICROSECONDS":
                return v * 1_000L;
            case "MILLISECONDS":
                return v * 1_000_000L;
            case "SECONDS":
                return v * 1_000_000_000L;
            default:
                return v;
        }
    }

    /** Samples are nearly all the events: their path is kept apart and small, so it compiles early and stays compiled. */
    private void sample(Plan p) {
        long[] v = p.vals;
        addSample(p, p.fStart >= 0 ? v[p.fStart] : 0, p.fThread >= 0 ? v[p.fThread] : 0, p.fStack >= 0 ? v[p.fStack] : 0,
                p.fState >= 0 ? v[p.fState] : 0, p.fSamples >= 0 ? v[p.fSamples] : 1);
    }

    /**
     * A sample event whose fields are all varints (every producer's, in practice): read straight into locals,
     * the same as {@link #decode} then {@link #sample}. Tens of millions of these are most of a big recording.
     */
    private void sampleFast(Cursor c, Plan p) throws JfrFormatException {
        byte[] fields = p.sampleFields;
        long ticks = 0;
        long threadKey = 0;
        long stackKey = 0;
        long stateKey = 0;
        long count = 1;
        for (byte f : fields) {
            long v = c.varlongInEvent();
            switch (f) {
                case F_START -> ticks = v;
                case F_THREAD -> threadKey = v;
                case F_STACK -> stackKey = v;
                case F_STATE -> stateKey = v;
                case F_SAMPLES -> count = v;
                default -> { }
            }
        }
        c.checkInEvent();
        addSample(p, ticks, threadKey, stackKey, stateKey, count);
    }

    /**
     * A monitor or park event whose fields are all varints (every producer's): read straight into locals, then
     * {@link #addLock} as {@link #handle} does after {@link #decode}. A lock-heavy recording is tens of millions of
     * these; in {@link #handle} they shared a method with every rare event type, which C2 compiled five times at up
     * to 0.4 s, once after each rare branch (a chunk's first stack, class or thread) was first taken.
     */
    private void lockFast(Cursor c, Plan p) throws JfrFormatException {
        long ticks = 0;
        long duration = 0;
        long threadKey = 0;
        long stackKey = 0;
        long classKey = 0;
        long address = 0;
        long ownerKey = 0;
        for (byte f : p.lockFields) {
            long v = c.varlongInEvent();
            switch (f) {
                case F_START -> ticks = v;
                case F_DURATION -> duration = v;
                case F_THREAD -> threadKey = v;
                case F_STACK -> stackKey = v;
                case F_CLASS -> classKey = v;
                case F_ADDRESS -> address = v;
                case F_OWNER -> ownerKey = v;
                default -> { }
            }
        }
        c.checkInEvent();
        addLock(p, ticks, duration, threadKey, stackKey, classKey, address, ownerKey);
    }

    /**
     * A file or socket event of the JDK's layout: read straight into locals, then added as {@link #handle} adds it
     * after {@link #decode}. A handler storm recorded at threshold 0 is a hundred million of these; decoded field by
     * field, each made a new String of its path (and hashed and compared it in full to find its number) and took an
     * object array's trip through {@link Plan#objs}. An inline path equal to the last one read is not decoded again.
     */
    private void ioFast(Cursor c, Plan p) throws JfrFormatException {
        long ticks = 0;
        long duration = 0;
        long threadKey = 0;
        long stackKey = 0;
        long bytes = 0;
        String target = null;
        for (byte f : p.ioFields) {
            switch (f) {
                case F_TARGET -> target = p.type.fields[p.fTarget].constantPool ? pools.string(c.varlongInEvent()) : ioTarget(c);
                case F_SKIP_STRING -> c.skipString();
                case F_SKIP_U1 -> c.u1();
                default -> {
                    long v = c.varlongInEvent();
                    switch (f) {
                        case F_START -> ticks = v;
                        case F_DURATION -> duration = v;
                        case F_THREAD -> threadKey = v;
                        case F_STACK -> stackKey = v;
                        case F_BYTES -> bytes = v;
                        default -> { }
                    }
                }
            }
        }
        c.checkInEvent();
        long start = p.fStart >= 0 ? nanos(ticks) : startNanos;
        long dur = p.fDuration >= 0 ? span(p, p.fDuration, duration) : 0;
        rec.io.add(p.ioType, start, start + dur, threadKey == 0 ? -1 : threadOf(threadKey),
                p.fStack >= 0 ? stackOf(stackKey) : 0, target, bytes);
    }

    /** The last inline target string read, its bytes as written, and its encoding: a storm writes one path over and over. */
    private final byte[] lastTargetBytes = new byte[256];
    private int lastTargetLength = -1;
    private byte lastTargetEncoding;
    private String lastTargetString;

    /**
     * An inline target string: for UTF-8 and Latin-1 (encodings 3 and 5, the JDK's), the last one's String when its
     * bytes are the same; a reference into the string pool (2), that entry, with no reference object made (a C1
     * compile from before the reference's class was loaded made each in the runtime: 0.3 s of a 75 MB report); any
     * other encoding (a char array, none) as {@link #decode} reads it.
     */
    private String ioTarget(Cursor c) throws JfrFormatException {
        byte enc = c.peekU1();
        if (enc == 2) {
            c.u1();
            return pools.string(c.varlong());
        }
        if (enc != 3 && enc != 5) return pools.resolve(c.string());
        c.u1();
        int len = c.count(1);
        boolean cached = len <= lastTargetBytes.length;
        if (cached) {
            if (len == lastTargetLength && enc == lastTargetEncoding && c.bytesEqual(lastTargetBytes, len)) {
                c.skip(len);
                return lastTargetString;
            }
            c.copy(lastTargetBytes, len);
        }
        String s = c.text(len, enc == 3 ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
        lastTargetLength = cached ? len : -1;
        lastTargetEncoding = enc;
        lastTargetString = s;
        return s;
    }

    /** One lock event, from its fields' raw values (pool keys, ticks); those the event type lacks are ignored. */
    private void addLock(Plan p, long ticks, long duration, long threadKey, long stackKey, long classKey, long address, long ownerKey) {
        long start = p.fStart >= 0 ? nanos(ticks) : startNanos;
        long end = start + (p.fDuration >= 0 ? span(p, p.fDuration, duration) : 0);
        // The owner first: threads are numbered as first seen, in the order handle() has always looked them up.
        int owner = ownerKey == 0 ? -1 : threadOf(ownerKey);
        rec.locks.add(p.role == Role.MONITOR ? LockEvent.Kind.MONITOR : LockEvent.Kind.PARK, start, end,
                threadKey == 0 ? -1 : threadOf(threadKey), p.fStack >= 0 ? stackOf(stackKey) : 0,
                p.fClass >= 0 ? lockClass(classKey) : -1, address, owner);
    }

    private long lastClassKey = Long.MIN_VALUE;
    private int lastClassIndex;

    /** The recording's index of the lock class with pool key {@code key} (-1: not in the pool); a storm's events share a few. */
    private int lockClass(long key) {
        if (key == lastClassKey) return lastClassIndex;
        return newLockClass(key);
    }

    private int newLockClass(long key) {
        String cls = pools.className(key);
        lastClassIndex = cls == null ? -1 : rec.locks.classId(cls);
        lastClassKey = key;
        return lastClassIndex;
    }

    /** One sample, from its fields' raw values (pool keys, ticks); those the event type lacks are ignored. */
    private void addSample(Plan p, long ticks, long threadKey, long stackKey, long stateKey, long count) {
        if (threadKey == 0) return;
        int thread = threadOf(threadKey);
        long start = p.fStart >= 0 ? nanos(ticks) : startNanos;
        State st = p.nativeSample ? State.NATIVE : p.fState >= 0 ? state(stateKey) : State.UNKNOWN;
        int weight = p.fSamples >= 0 ? (int) Math.max(1, Math.min(count, 1_000_000)) : 1;
        samples.add(start, thread, p.fStack >= 0 ? stackOf(stackKey) : 0, (byte) st.ordinal(), weight);
    }

    private void handle(Plan p) throws JfrFormatException {
        long start = p.fStart >= 0 ? nanos(p.vals[p.fStart]) : startNanos;
        switch (p.role) {
            case SAMPLE:
                sample(p);
                return;
            case MONITOR:
            case PARK: {
                long[] v = p.vals;
                addLock(p, p.fStart >= 0 ? v[p.fStart] : 0, p.fDuration >= 0 ? v[p.fDuration] : 0, p.fThread >= 0 ? v[p.fThread] : 0,
                        p.fStack >= 0 ? v[p.fStack] : 0, p.fClass >= 0 ? v[p.fClass] : 0, p.fAddress >= 0 ? v[p.fAddress] : 0,
                        p.fOwner >= 0 ? v[p.fOwner] : 0);
                return;
            }
            case IO: {
                long dur = span(p, p.fDuration);
                String target = p.fTarget >= 0 ? pools.resolve(p.objs[p.fTarget]) : null;
                long bytes = p.fBytes >= 0 ? p.vals[p.fBytes] : 0;
                rec.io.add(p.ioType, start, start + dur, thread(p, p.fThread), stack(p), target, bytes);
                return;
            }
            case SPAN: {
                // Committed at the end of the operation: the span is [startTime - opDuration, startTime],
                // unless the event carries an ordinary JFR duration.
                long dur = p.fDuration >= 0 ? span(p, p.fDuration) : 0;
                long begin = start;
                long end = start + dur;
                if (dur == 0 && p.fOpDuration >= 0) {
                    begin = start - span(p, p.fOpDuration);
                    end = start;
                }
                rec.spans.add(new Span(p.type.name, begin, end, thread(p, p.fThread), strField(p, p.fOp),
                        strField(p, p.fRole), strField(p, p.fTopic),
                        p.fPartition >= 0 ? (int) p.vals[p.fPartition] : -1, p.fBytes >= 0 ? p.vals[p.fBytes] : -1,
                        strField(p, p.fPath), p.fFailed >= 0 && p.vals[p.fFailed] != 0,
                        Span.Behind.of(strField(p, p.fBehindOp), strField(p, p.fBehindThread),
                                p.fBehindOverlap >= 0 ? p.vals[p.fBehindOverlap] : 0, strField(p, p.fScope))));
                return;
            }
            case LOG_DIR: {
                String dir = strField(p, p.fLogDir);
                if (dir != null && !dir.isEmpty()) {
                    rec.logDirs.add(new LogDir(file.index, dir, strField(p, p.fFileSystem), strField(p, p.fDevice),
                            strField(p, p.fMountPoint)));
                }
                return;
            }
            case SAFEPOINT:
                safepoint(p, start);
                return;
            case SETTING: {
                String name = p.fName >= 0 ? pools.resolve(p.objs[p.fName]) : null;
                String value = p.fValue >= 0 ? pools.resolve(p.objs[p.fValue]) : null;
                if ("event".equals(name) && value != null) file.profilerEvent = value;
                // async-profiler writes its sampling interval as a setting ("wall" or "interval", in ns).
                if (value != null && ("wall".equals(name) || "interval".equals(name))) {
                    try {
                        long v = Long.parseLong(value.trim());
                        if (v > 0 && (file.sampleIntervalNanos == 0 || "wall".equals(name))) {
                            file.sampleIntervalNanos = v;
                            intervalFromWall |= "wall".equals(name);
                        }
                    } catch (NumberFormatException ignored) {
                        // Not a number of nanoseconds ("20 ms" in JDK settings): the interval is estimated later.
                    }
                }
                return;
            }
            default:
        }
    }

    /** One piece of a safepoint, joined with its other pieces by id in {@link io.stallscope.analyzer.model.Safepoints}. */
    private void safepoint(Plan p, long start) {
        SafepointFields f = p.safepoint;
        if (f.id < 0) return;
        long id = p.vals[f.id];
        int fileIndex = file.index;
        switch (f.kind) {
            case BEGIN -> rec.safepoints.begin(fileIndex, id, intField(p, f.totalThreads));
            case SYNC -> rec.safepoints.sync(fileIndex, id, start, start + span(p, p.fDuration), intField(p, f.initialRunning));
            case END -> rec.safepoints.end(fileIndex, id, start);
            case OPERATION -> {
                // An operation run outside a safepoint (a handshake) carries no safepoint of its own.
                if (f.atSafepoint < 0 || p.vals[f.atSafepoint] != 0) rec.safepoints.operation(fileIndex, id, nameField(p, f.operation));
            }
            case AGENT -> rec.safepoints.agent(fileIndex, id, strField(p, f.operation),
                    f.syncStart >= 0 ? p.vals[f.syncStart] * 1_000_000L : start, span(p, f.syncTime), intField(p, f.runningAtStart),
                    intField(p, f.threads), new Safepoint.Agent(strField(p, p.fBehindThread), strField(p, p.fBehindOp), strField(p, f.behindPath)));
            default -> { }
        }
    }

    /**
     * A string field, or a reference to a pool entry that is a name: the JDK writes a VM operation as a
     * jdk.types.VMOperationType, whose one field is its name ("G1CollectFull").
     */
    private String nameField(Plan p, int f) {
        if (f < 0) return null;
        JfrType.JfrField field = p.type.fields[f];
        if (!field.constantPool || field.type.kind == JfrType.Kind.STRING) return strField(p, f);
        if (pools.struct(field.type.name, p.vals[f]) instanceof Object[] values) {
            for (Object v : values) {
                String s = pools.resolve(v);
                if (s != null) return s;
            }
        }
        return null;
    }

    /** An int field's value, -1 when the type lacks it. */
    private static int intField(Plan p, int f) {
        return f < 0 ? -1 : (int) p.vals[f];
    }

    private String strField(Plan p, int f) {
        if (f < 0) return null;
        JfrType.JfrField field = p.type.fields[f];
        if (field.constantPool) return pools.string(p.vals[f]);
        return pools.resolve(p.objs[f]);
    }

    private State state(long key) {
        return pools.state(key);
    }

    private int thread(Plan p, int field) {
        if (field < 0) return -1;
        long key = p.vals[field];
        return key == 0 ? -1 : threadOf(key);
    }

    /** The chunk's thread id of a pool key (not 0). */
    private int threadOf(long key) {
        // A direct-mapped cache in front of the map: a chunk's events come from a few hundred threads.
        int h = (int) (key ^ (key >>> 10)) & (THREAD_CACHE - 1);
        if (threadCacheKey[h] == key) return threadCacheId[h];
        int id = threadIds.get(key, Integer.MIN_VALUE);
        int thread = id != Integer.MIN_VALUE ? id : newThread(key);
        threadCacheKey[h] = key;
        threadCacheId[h] = thread;
        return thread;
    }

    /** First sight of a thread in this chunk. Kept out of {@link #thread} so the per-event path stays small to compile. */
    private int newThread(long key) {
        int id;
        ConstantPools.ThreadRef t = pools.thread(key);
        if (t == null) {
            id = rec.thread(file.index, "thread-" + key, 0, key);
        } else {
            id = rec.thread(file.index, t.javaName() != null && !t.javaName().isEmpty() ? t.javaName() : t.osName(), t.javaId(), t.osId());
        }
        threadIds.put(key, id);
        return id;
    }

    private int stack(Plan p) {
        return p.fStack < 0 ? 0 : stackOf(p.vals[p.fStack]);
    }

    /** Stack ids by pool key; producers number stacks from 1 up, so small keys index an array (id + 1, 0: not seen). */
    private int[] denseStacks = new int[1024];
    private static final int DENSE_STACKS_MAX = 1 << 20;

    private int stackOf(long key) {
        if (key >= 0 && key < denseStacks.length) {
            int id = denseStacks[(int) key] - 1;
            return id >= 0 ? id : newStack(key);
        }
        int id = stackIds.get(key, -1);
        return id >= 0 ? id : newStack(key);
    }

    private int newStack(long key) {
        int id = rec.stacks.intern(stackFrames(key));
        if (key >= 0 && key < DENSE_STACKS_MAX) {
            // Never past the bound: stackOf takes a key below the array's length for a dense one.
            if (key >= denseStacks.length) {
                denseStacks = java.util.Arrays.copyOf(denseStacks, Math.min(DENSE_STACKS_MAX, Math.max((int) key + 1, denseStacks.length * 2)));
            }
            denseStacks[(int) key] = id + 1;
        } else {
            stackIds.put(key, id);
        }
        return id;
    }

    /** Per chunk: (method, line, frame type) to frame id, so a frame's name is built once, not per stack. */
    private final FrameIds frameIds = new FrameIds();
    private int[] frameBuf = new int[64];

    /**
     * The frame ids of a stack-trace pool entry. A profiler's pool holds many stacks that differ only in
     * bytecode index, so this is hot: the usual layout (truncated, frames[method, line, bci, type]) is read
     * directly; any other layout goes through the generic reader.
     */
    private int[] stackFrames(long key) {
        int at = pools.stackPosition(key);
        if (at < 0) return new int[0];
        try {
            if (standardStacks) {
                Cursor c = new Cursor(buf, at, base + available);
                c.u1();
                int n = c.count(4);
                if (n > frameBuf.length) frameBuf = new int[n];
                for (int i = 0; i < n; i++) {
                    long method = c.varlong();
                    int line = (int) c.varlong();
                    c.varlong();
                    long type = c.varlong();
                    frameBuf[i] = frame(method, line, type);
                }
                return java.util.Arrays.copyOf(frameBuf, n);
            }
            JfrType st = meta.byName.get("jdk.types.StackTrace");
            Object v = pools.struct("jdk.types.StackTrace", key);
            Object frames = get(v, st, "frames");
            if (!(frames instanceof Object[] fa)) return new int[0];
            JfrType ft = st.fields[st.field("frames")].type;
            int[] ids = new int[fa.length];
            int n = 0;
            for (Object f : fa) {
                Object m = get(f, ft, "method");
                if (!(m instanceof Long mk)) continue;
                Object type = get(f, ft, "type");
                ids[n++] = frame(mk, (int) Values.asLong(get(f, ft, "lineNumber")), type instanceof Long t ? t : -1);
            }
            return java.util.Arrays.copyOf(ids, n);
        } catch (JfrFormatException e) {
            return new int[0];
        }
    }

    /** A field of a generically read struct (Object[] per field), or null. */
    private static Object get(Object struct, JfrType t, String field) {
        if (!(struct instanceof Object[] a) || t == null) return null;
        int i = t.field(field);
        return i >= 0 && i < a.length ? a[i] : null;
    }

    private int frame(long method, int line, long type) {
        int id = frameIds.get(method, line, type);
        return id >= 0 ? id : newFrame(method, line, type);
    }

    private int newFrame(long method, int line, long type) {
        ConstantPools.Method m = pools.method(method);
        boolean java = m.java() && !(type >= 0 && pools.nativeFrameType(type));
        int id = rec.frames.intern(m.name(), line, java);
        frameIds.put(method, line, type, id);
        return id;
    }
}
