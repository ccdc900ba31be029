package io.stallscope.agent.bootstrap;

import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The entry points that advice calls. Lives on the bootstrap class path so that advice inlined
 * into JDK classes (FileChannelImpl) can reach it as well as advice inlined into Kafka's classes.
 *
 * <p>{@link #enter} returns a start timestamp, or one of two markers: {@link #INACTIVE} (no sink, or the enter
 * failed: nothing to undo) or {@link #NESTED} (an outer call of the same op is timing; depth was raised and
 * {@link #exit} lowers it again). INACTIVE is 0 because that is what ByteBuddy hands the exit advice when the
 * enter advice threw and was suppressed (a StackOverflowError or an OutOfMemoryError before {@link #enter} could
 * catch it): such an exit must record nothing and leave the enclosing op's slot alone.
 */
public final class Hooks {
    public static final long INACTIVE = 0L;
    public static final long NESTED = Long.MIN_VALUE;

    private static volatile HookSession session;

    private Hooks() {
    }

    /** A new sink starts a new session (fresh per-thread states); null detaches and empties the last one. */
    public static void install(OpSink newSink) {
        HookSession previous = session;
        session = newSink == null ? null : new HookSession(newSink);
        if (previous != null) {
            previous.registry.empty();
        }
        QueuedTasks.clear();
    }

    /**
     * Instances of {@code className} that end a long op stay in their thread's ring as they are, not weakly: for small
     * per-request subjects that hold no file (see {@link ThreadState}), which would otherwise be collected before a
     * later stall could say what the op worked on.
     */
    public static void keepInRing(String className) {
        ThreadState.keepAsIs(className);
    }

    public static OpSink sink() {
        HookSession current = session;
        return current == null ? null : current.sink;
    }

    static HookSession session() {
        return session;
    }

    /** An op whose subject is not known until it ends: other threads see it open, with no subject. */
    public static long enter(int op) {
        return enter(op, null);
    }

    /**
     * @param subject what the op works on, as {@link #exit} gets it: kept on the thread's state while the op runs
     *                (a reference, no copy), so a slow op elsewhere can tell whether this one shared its file
     */
    public static long enter(int op, Object subject) {
        HookSession current = session;
        if (current == null) {
            return INACTIVE;
        }
        ThreadState state = null;
        int openBefore = -1;
        try {
            state = current.state();
            int depth = state.depth[op];
            if (depth > 0) {
                state.depth[op] = depth + 1;
                return NESTED;
            }
            openBefore = state.open;
            long start = System.nanoTime();
            // nanoTime may legitimately be any value; nudge the two marker values out of the way
            start = start == INACTIVE || start == NESTED ? start + 1 : start;
            state.opened(op, start, subject);
            state.depth[op] = 1; // last: an enter that fails before this leaves no depth for an exit to lower
            return start;
        } catch (Throwable t) {
            if (openBefore >= 0) {
                state.abandonOpen(openBefore);
            }
            current.failed(op, t);
            return INACTIVE;
        }
    }

    /**
     * Times {@code op} as a wait for {@code lock} shared, when another thread holds it exclusively or is queued for
     * it (then a shared request queues too): the lock is taken and released here, and the caller's own acquisition
     * right after is immediate (or, rarely, waits again, untimed). Uncontended, or with no session: two reads of the
     * lock's state and nothing timed. Nothing is held when this returns, whatever fails.
     */
    public static void awaitShared(int op, Object subject, ReentrantReadWriteLock lock) {
        if (session == null || lock == null || !lock.isWriteLocked() && !lock.hasQueuedThreads()
            || lock.isWriteLockedByCurrentThread()) {
            return;
        }
        long start = enter(op, subject);
        if (start == INACTIVE) {
            return;
        }
        try {
            lock.readLock().lock();
            lock.readLock().unlock();
        } finally {
            exit(op, start, subject, -1L, null);
        }
    }

    /**
     * An op this thread did not run but ended: a task's wait in its pool's queue, from {@code since} (another thread's
     * nanoTime, when it queued the task) to now, when this thread takes the task up. Reported on this thread, as an op
     * of its own (no enclosing op's inner time, nothing on the open stack); its duration is never negative.
     */
    public static void waited(int op, long since, Object subject) {
        waited(op, since, subject, null);
    }

    /**
     * As {@link #waited(int, long, Object)}, for a wait that did not end in the task's run: {@code ended} says how (a
     * marker the sink counts as the op's failure, e.g. a queued read cancelled when its fetch expired), or null.
     */
    public static void waited(int op, long since, Object subject, Throwable ended) {
        HookSession current = session;
        if (current == null) {
            return;
        }
        try {
            long end = System.nanoTime();
            long start = end - since < 0 ? end : since;
            current.sink.record(op, start, end - start, subject, -1L, ended, current.state());
        } catch (Throwable t) {
            current.failed(op, t);
        }
    }

    /** An exception in the agent's own code called from advice outside these hooks: counted, never rethrown. */
    public static void failed(int op, Throwable error) {
        HookSession current = session;
        if (current != null) {
            current.failed(op, error);
        }
    }

    /**
     * A lookup of Kafka's remote index cache begins (RemoteIndexCache.getIndexEntry): a mark for
     * {@link #indexCacheLookupEnded}, the thread's loads so far plus one; {@link #INACTIVE} when nothing is counted
     * (no sink, or this failed), as the exit advice also gets it when the enter advice threw.
     */
    public static long indexCacheLookupStarted(int op) {
        HookSession current = session;
        if (current == null) {
            return INACTIVE;
        }
        try {
            return current.state().indexCacheLoads + 1;
        } catch (Throwable t) {
            current.failed(op, t);
            return INACTIVE;
        }
    }

    /**
     * The remote index cache runs its loader on this thread (RemoteIndexCache.createCacheEntry, which Caffeine calls
     * inside the lookup on a miss only): the lookup open on this thread is a miss, whether the load succeeds or not.
     */
    public static void indexCacheLoadStarted(int op) {
        HookSession current = session;
        if (current == null) {
            return;
        }
        try {
            current.state().indexCacheLoads++;
        } catch (Throwable t) {
            current.failed(op, t);
        }
    }

    /**
     * The lookup ended: a miss when a load began on this thread inside it, else a hit (the indexes were cached, or
     * another thread was loading them and this one waited for that load). One that threw without a load (the cache
     * was closed) is neither. Nothing is counted without a sink, or when the enter gave {@link #INACTIVE}.
     */
    public static void indexCacheLookupEnded(int op, long mark, Throwable thrown) {
        if (mark == INACTIVE) {
            return;
        }
        HookSession current = session;
        if (current == null) {
            return;
        }
        try {
            boolean missed = current.state().indexCacheLoads + 1 != mark;
            if (missed || thrown == null) {
                current.sink.indexCacheLookup(!missed);
            }
        } catch (Throwable t) {
            current.failed(op, t);
        }
    }

    public static void exit(int op, long start, Object subject, long bytes, Throwable thrown) {
        if (start == INACTIVE) {
            return;
        }
        HookSession current = session;
        if (current == null) {
            return; // detached while the op ran: its state was emptied, nothing is reported
        }
        try {
            ThreadState state = current.state();
            if (state.depth[op] > 0) {
                state.depth[op]--;
            }
            if (start == NESTED) {
                return;
            }
            long end = System.nanoTime();
            state.closed(op, start, end, subject);
            current.sink.record(op, start, end - start, subject, bytes, thrown, state);
        } catch (Throwable t) {
            current.failed(op, t);
        }
    }
}
