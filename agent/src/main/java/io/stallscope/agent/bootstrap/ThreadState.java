package io.stallscope.agent.bootstrap;

import java.io.File;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;
import java.nio.file.Path;

/**
 * Per-thread bookkeeping: nesting depth per op (roll() calls roll(Optional), TimeIndex.resize calls
 * super.resize: only the outermost call is timed), the thread's role, cached by the sink against the thread
 * name it was derived from, and what the thread is doing for other threads' blame: the timed ops open now
 * (a stack, outermost first) and a ring of recently ended long ones.
 *
 * <p>Only the owner thread writes; a slow op on another thread reads through {@link #read}. The two are kept
 * apart by a sequence number (a seqlock): odd while the owner writes, so a reader that saw it change retries
 * or gives up instead of pairing one op's kind with another's start. Release/acquire ordering only: no fence
 * instruction and no allocation on the owner's path.
 */
public final class ThreadState {
    /** Open ops kept per thread: Kafka nests at most four (append, roll, snapshot take, write). */
    public static final int STACK = 6;
    /** Ended long ops kept per thread: a network thread ends a few long sendfiles a second when the disk is slow. */
    public static final int RING = 16;
    /** Ops at least this long go into the ring: shorter ones cannot explain a stall worth a line. */
    public static final long RING_MIN_NANOS = 1_000_000L;

    private static final VarHandle SEQ;

    static {
        try {
            SEQ = MethodHandles.lookup().findVarHandle(ThreadState.class, "seq", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final int[] depth = new int[Op.COUNT];
    /** The name the cached role was derived from; compared by reference, names rarely change. */
    public String roleName;
    public int role = -1;
    /** Timed (outermost) ops open on this thread: more than 0 while an op runs inside another one. */
    public int open;
    /** Slow ops that ended inside an op still open, kept by the sink for the enclosing op's one log line. */
    public Object slowInner;
    /**
     * Loads of Kafka's remote index cache begun on this thread, ever (its misses, the loader runs on the looking-up
     * thread): a lookup that ends with more than it began with missed ({@link Hooks#indexCacheLookupEnded}).
     */
    long indexCacheLoads;

    private final WeakReference<Thread> owner;
    @SuppressWarnings("unused") // through SEQ
    private volatile long seq;

    private final int[] openOp = new int[STACK];
    private final long[] openStart = new long[STACK];
    private final Object[] openSubject = new Object[STACK];
    /** Time spent in the ops directly inside each open one, for the outer op's own share (the log's lock wait). */
    private final long[] openInner = new long[STACK];
    private long endedInner;

    private final int[] ringOp = new int[RING];
    private final int[] ringDepth = new int[RING];
    private final long[] ringStart = new long[RING];
    private final long[] ringEnd = new long[RING];
    /** A path as a String, or a WeakReference to the subject: the ring must not keep a deleted log alive. */
    private final Object[] ringSubject = new Object[RING];
    private int ringNext;
    private int ringSize;

    public ThreadState() {
        this(null);
    }

    public ThreadState(Thread owner) {
        this.owner = new WeakReference<>(owner);
    }

    /** The thread this state belongs to, or null once it has died (or for a test's state). */
    public Thread owner() {
        return owner.get();
    }

    /** An outermost op begins: it goes on the stack (past {@link #STACK} deep it is only counted). */
    void opened(int op, long start, Object subject) {
        int slot = open;
        if (slot >= STACK) {
            open = slot + 1;
            return;
        }
        long s = (long) SEQ.getOpaque(this);
        SEQ.setOpaque(this, s + 1);
        VarHandle.storeStoreFence();
        open = slot + 1;
        openOp[slot] = op;
        openStart[slot] = start;
        openSubject[slot] = subject;
        openInner[slot] = 0;
        SEQ.setRelease(this, s + 2);
    }

    /**
     * The innermost open op ended: it leaves the stack, its time is added to its enclosing op's inner time, and a
     * long one goes into the ring.
     */
    void closed(int op, long start, long end, Object subject) {
        if (open <= 0) {
            return; // a state left from before an attach: nothing was opened on it
        }
        int slot = open - 1;
        if (slot >= STACK) {
            open = slot;
            return;
        }
        long duration = end - start;
        Object kept = duration >= RING_MIN_NANOS ? retained(subject) : null; // outside the write: may allocate
        endedInner = openInner[slot];
        if (slot > 0) {
            openInner[slot - 1] += duration;
        }
        long s = (long) SEQ.getOpaque(this);
        SEQ.setOpaque(this, s + 1);
        VarHandle.storeStoreFence();
        open = slot;
        openSubject[slot] = null; // nothing kept alive by an op that has ended, unless the ring keeps it
        if (duration >= RING_MIN_NANOS) {
            int i = ringNext;
            ringOp[i] = op;
            ringDepth[i] = slot;
            ringStart[i] = start;
            ringEnd[i] = end;
            ringSubject[i] = kept;
            ringNext = (i + 1) % RING;
            ringSize = Math.min(RING, ringSize + 1);
        }
        SEQ.setRelease(this, s + 2);
    }

    /**
     * What the ring keeps of an ended op's subject: a path as it is (a sendfile's, a snapshot file's: cheap, and
     * gone with the op's File otherwise), anything else (a segment, a whole log) only weakly. Only ops of 1 ms and
     * more reach the ring, so the WeakReference is no cost to the fast path.
     */
    private static Object retained(Object subject) {
        if (subject == null || subject instanceof String || keptAsIs(subject.getClass().getName())) {
            return subject;
        }
        if (subject instanceof File) {
            return ((File) subject).getPath();
        }
        if (subject instanceof Path) {
            return subject.toString();
        }
        return new WeakReference<>(subject);
    }

    /**
     * Classes whose instances the ring keeps as they are, by name: small per-request values that hold no file and
     * that the young generation collects within milliseconds of the op's end, before a later stall could name it (a
     * remote read's RemoteStorageFetchInfo, the only thing that says which partition it read).
     */
    private static volatile String[] keptAsIs = new String[0];

    static synchronized void keepAsIs(String className) {
        String[] names = keptAsIs;
        for (String name : names) {
            if (name.equals(className)) {
                return;
            }
        }
        String[] more = java.util.Arrays.copyOf(names, names.length + 1);
        more[names.length] = className;
        keptAsIs = more;
    }

    private static boolean keptAsIs(String className) {
        for (String name : keptAsIs) {
            if (name.equals(className)) {
                return true;
            }
        }
        return false;
    }

    private static Object subjectOf(Object kept) {
        return kept instanceof WeakReference ? ((WeakReference<?>) kept).get() : kept;
    }

    /** An enter failed part way: the stack goes back to {@code openBefore} ops, and readers may read again. */
    void abandonOpen(int openBefore) {
        if (openBefore < STACK) {
            openSubject[openBefore] = null;
        }
        open = openBefore;
        long s = (long) SEQ.getOpaque(this);
        if ((s & 1) != 0) {
            SEQ.setRelease(this, s + 1);
        }
    }

    /**
     * Drops everything this state holds: its thread died, or the hooks were detached (the state is then in no
     * registry and no thread gets it again). Called from another thread than the owner, without the seqlock: an
     * owner that was inside an enter or exit at that moment may still write one entry after it, a leftover on a
     * state nothing reads any more.
     */
    void empty() {
        for (int i = 0; i < STACK; i++) {
            openSubject[i] = null;
        }
        for (int i = 0; i < RING; i++) {
            ringSubject[i] = null;
        }
        ringSize = 0;
        open = 0;
        slowInner = null;
        role = -1;
        roleName = null;
    }

    /**
     * Whether an op still open on this thread takes a slow op's line (a roll takes its snapshot's). An append is
     * only a wait for the log's lock around its ops: the ops inside it keep lines of their own.
     */
    public boolean enclosedByTimedOp() {
        return open > 1 || open == 1 && openOp[0] != Op.LOG_APPEND;
    }

    /** Time spent in the ops directly inside the op that ended last on this thread (0 when none, or too deep). */
    public long endedInnerNanos() {
        return endedInner;
    }

    /**
     * Copies this thread's open ops and its ring of ended long ops into {@code into} (cleared first). Called from
     * another thread, on the slow path only. Returns false when the owner kept writing through a few attempts:
     * then {@code into} is empty, since a torn copy could pair ops that never met.
     */
    public boolean read(OpTrace into) {
        for (int attempt = 0; attempt < 4; attempt++) {
            into.clear();
            long before = (long) SEQ.getAcquire(this);
            if ((before & 1) != 0) {
                Thread.onSpinWait();
                continue;
            }
            int depthNow = Math.min(open, STACK);
            for (int slot = 0; slot < depthNow; slot++) {
                into.add(openOp[slot], slot, openStart[slot], OpTrace.RUNNING, openSubject[slot]);
            }
            for (int k = 0; k < ringSize; k++) {
                int i = Math.floorMod(ringNext - 1 - k, RING);
                into.add(ringOp[i], ringDepth[i], ringStart[i], ringEnd[i], subjectOf(ringSubject[i]));
            }
            VarHandle.loadLoadFence();
            if ((long) SEQ.getOpaque(this) == before) {
                return true;
            }
        }
        into.clear();
        return false;
    }
}
