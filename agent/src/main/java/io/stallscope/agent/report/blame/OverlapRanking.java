package io.stallscope.agent.report.blame;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.bootstrap.OpTrace;

import java.util.function.Function;

/**
 * Ranks other threads' ops against one slow op and names the most likely culprit. An op is a candidate when it
 * shares the slow op's file, log or device ({@link Scope}) and ran at the same time for at least
 * {@link #MIN_OVERLAP_NANOS}, and it (or an op around it on its thread) was already running when the slow op
 * began. On the device alone it must also have waited on the disk itself, and not as the slow op did
 * ({@link DiskWait}): another append stalled by the same device is a co-victim, not a cause. The narrowest scope wins, then the longest overlap. Within the winning thread the
 * op named is the innermost one at that scope that covered at least half of its thread's overlap: the handler
 * rolling a log is named by its snapshot_write when the fsync took the time. Nothing shared, or nothing at the
 * same time: no culprit, never a guess. A wait for a log's lock ({@link Op#LOG_APPEND}'s own time) is behind only
 * what held that lock: an op of the same log run inside another thread's append or roll (Kafka takes the lock for
 * both), never a scheduler's flush, which fsyncs outside it (2.8's {@code Log.flush}, 3.x's {@code UnifiedLog.flush}).
 * A wait for an index's remap lock ({@link Op#INDEX_REMAP_WAIT}) is behind only a resize of the same index, which takes
 * that lock exclusively; and a wait, holding nothing, is never named itself. A remote read's wait in the reader pool's
 * queue ({@link Op#REMOTE_QUEUE_WAIT}) has no local place: it is behind the remote reads that held the pool's threads
 * during it, of any partition ({@link Scope#POOL}); the longest is named, and how many more there were. A read that
 * began during the wait counts too: the pool's queue is first in, first out, so it was queued ahead and took a thread
 * the wait needed (a burst of fetches queues reads within microseconds of each other: the first ones start on the
 * free threads just after the rest are queued).
 */
public final class OverlapRanking {
    /** Shorter overlaps explain nothing worth naming in a line about a stall of 100 ms. */
    static final long MIN_OVERLAP_NANOS = 1_000_000L;

    private final Function<Object, String> pathOf;
    private final LogDirDevices devices;
    private final OpPlace victim;
    private final int victimOp;
    /** The victim waited for its log's lock: only that lock's holder can be named. */
    private final boolean lockWait;
    /** The victim waited for an index's remap lock: only a resize of that index can be named. */
    private final boolean remapWait;
    /** The victim waited in the remote-log-reader pool's queue: only the remote reads holding the pool can be named. */
    private final boolean queueWait;
    /** Threads whose remote read held the pool during the queue wait. */
    private int poolHolders;
    private final long victimStart;
    private final long victimEnd;
    private final long now;

    private Culprit best;
    private long bestOverlap;

    /**
     * @param victimOp   the slow op ({@link Op}); {@link Op#LOG_APPEND} is slow for its wait for the log's lock
     * @param victimPath the slow op's path; with no partition directory in it nothing is ever named
     * @param now        the time an op still running is counted up to (the slow op's end, read once)
     */
    public OverlapRanking(int victimOp, String victimPath, long victimStart, long victimEnd, long now,
                          Function<Object, String> pathOf, LogDirDevices devices) {
        this.victim = OpPlace.of(victimPath);
        this.victimOp = victimOp;
        this.lockWait = victimOp == Op.LOG_APPEND;
        this.remapWait = victimOp == Op.INDEX_REMAP_WAIT;
        this.queueWait = victimOp == Op.REMOTE_QUEUE_WAIT;
        this.victimStart = victimStart;
        this.victimEnd = victimEnd;
        this.now = now;
        this.pathOf = pathOf;
        this.devices = devices;
    }

    /** Whether the slow op has a place at all: without one, reading other threads is wasted. */
    public boolean applies() {
        return victim != null || queueWait;
    }

    /** Whether the slow op's own thread is a candidate too: a pool thread's last read held the pool it waited for. */
    static boolean selfMayHold(int victimOp) {
        return victimOp == Op.REMOTE_QUEUE_WAIT;
    }

    /** One other thread's ops. */
    public void consider(String thread, String role, OpTrace ops) {
        if (queueWait) {
            considerPool(thread, role, ops);
            return;
        }
        if (victim == null) {
            return;
        }
        Scope threadScope = null;
        long threadOverlap = 0;
        Scope[] scopes = new Scope[ops.size()];
        long[] overlaps = new long[ops.size()];
        for (int i = 0; i < ops.size(); i++) {
            if (ops.op(i) == Op.LOG_APPEND || ops.op(i) == Op.INDEX_REMAP_WAIT
                || remapWait && ops.op(i) != Op.INDEX_RESIZE) {
                // a wait for a lock holds nothing up: what does is the op inside it, or the lock's holder
                continue;
            }
            long overlap = Math.min(endOf(ops, i), victimEnd) - Math.max(ops.start(i), victimStart);
            if (overlap < MIN_OVERLAP_NANOS || !runningWhenVictimBegan(ops, i)) {
                continue;
            }
            OpPlace place = OpPlace.of(pathOf.apply(ops.subject(i)));
            Scope scope = place == null ? null : victim.sharedWith(place, devices);
            if (scope == null || lockWait && (scope == Scope.DEVICE || !holdsLogLock(ops, i))
                || scope == Scope.DEVICE && !DiskWait.canHoldUpOnDevice(ops.op(i), victimOp)) {
                continue;
            }
            scopes[i] = scope;
            overlaps[i] = overlap;
            if (scope.narrowerThan(threadScope) || scope == threadScope && overlap > threadOverlap) {
                threadScope = scope;
                threadOverlap = overlap;
            }
        }
        if (threadScope == null || !beats(threadScope, threadOverlap)) {
            return;
        }
        int named = -1;
        for (int i = 0; i < ops.size(); i++) {
            if (scopes[i] != threadScope || overlaps[i] * 2 < threadOverlap) {
                continue;
            }
            if (named < 0 || ops.depth(i) > ops.depth(named)
                || ops.depth(i) == ops.depth(named) && overlaps[i] > overlaps[named]) {
                named = i;
            }
        }
        boolean running = ops.end(named) == OpTrace.RUNNING;
        long duration = (running ? now : ops.end(named)) - ops.start(named);
        best = new Culprit(ops.op(named), thread, role, duration, running, overlaps[named], threadScope,
            victim.logDir == null ? null : devices.fsType(victim.logDir));
        bestOverlap = threadOverlap;
    }

    /** A thread's remote read that held a pool thread for at least 1 ms of the queued read's wait. */
    private void considerPool(String thread, String role, OpTrace ops) {
        int named = -1;
        long longest = 0;
        for (int i = 0; i < ops.size(); i++) {
            if (ops.op(i) != Op.REMOTE_READ) {
                continue;
            }
            long overlap = Math.min(endOf(ops, i), victimEnd) - Math.max(ops.start(i), victimStart);
            if (overlap >= MIN_OVERLAP_NANOS && overlap > longest) {
                named = i;
                longest = overlap;
            }
        }
        if (named < 0) {
            return;
        }
        poolHolders++;
        if (best != null && longest <= bestOverlap) {
            best = best.withMoreHolders(poolHolders - 1);
            return;
        }
        boolean running = ops.end(named) == OpTrace.RUNNING;
        long duration = (running ? now : ops.end(named)) - ops.start(named);
        io.stallscope.agent.model.TopicPartition tp = io.stallscope.agent.model.LogPaths.topicPartition(
            pathOf.apply(ops.subject(named)));
        best = new Culprit(ops.op(named), thread, role, duration, running, longest, Scope.POOL, null,
            tp == null ? null : tp.topic() + "-" + tp.partition(), poolHolders - 1);
        bestOverlap = longest;
    }

    /**
     * A wait is behind what already held the file or lock when it began: the op itself, or an op around it on its
     * thread (the roll around a snapshot_write that began later), was running when the slow op began. Otherwise
     * the pairing would run backwards: a sendfile held up by nothing would be "behind" the write it held up.
     */
    private boolean runningWhenVictimBegan(OpTrace ops, int i) {
        if (ops.start(i) <= victimStart) {
            return true;
        }
        for (int j = 0; j < ops.size(); j++) {
            if (ops.depth(j) < ops.depth(i) && ops.start(j) <= victimStart && ops.start(j) <= ops.start(i)
                && endOf(ops, j) >= endOf(ops, i)) {
                return true;
            }
        }
        return false;
    }

    /** Whether op i ran under its log's lock: it is a roll, or an append or roll around it on its thread holds it. */
    private boolean holdsLogLock(OpTrace ops, int i) {
        if (ops.op(i) == Op.LOG_ROLL) {
            return true;
        }
        for (int j = 0; j < ops.size(); j++) {
            int op = ops.op(j);
            if ((op == Op.LOG_APPEND || op == Op.LOG_ROLL) && ops.depth(j) < ops.depth(i)
                && ops.start(j) <= ops.start(i) && endOf(ops, j) >= endOf(ops, i)) {
                return true;
            }
        }
        return false;
    }

    private long endOf(OpTrace ops, int i) {
        return ops.end(i) == OpTrace.RUNNING ? now : ops.end(i);
    }

    private boolean beats(Scope scope, long overlap) {
        return best == null || scope.narrowerThan(best.scope()) || scope == best.scope() && overlap > bestOverlap;
    }

    /** The most likely culprit among the threads considered, or null when none shared anything in time. */
    public Culprit culprit() {
        return best;
    }
}
