package io.stallscope.analyzer.analysis.holders;

import io.stallscope.analyzer.analysis.stacks.IoOp;
import io.stallscope.analyzer.analysis.stacks.LockWaitSite;
import io.stallscope.analyzer.analysis.stacks.StackClassifier;
import io.stallscope.analyzer.analysis.waits.Holder;
import io.stallscope.analyzer.analysis.waits.Wait;
import io.stallscope.analyzer.model.IoEvent;
import io.stallscope.analyzer.model.IoEvents;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.Samples;
import io.stallscope.analyzer.model.ThreadInfo;
import io.stallscope.analyzer.util.IndexSort;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Names the holder of each wait's lock: exactly when the recording says (JFR's previousOwner), otherwise from
 * samples taken meanwhile: the holder is a thread inside the method that takes the lock, past the lock site,
 * and not itself waiting there.
 */
public final class HolderAttributor {
    private final Recording rec;
    private final StackClassifier classifier;
    private final long[] intervals;
    private final Map<Integer, List<ThreadInfo>> threadsByFile;
    /** Per thread with recorded I/O events: looked up once per wait, often for a thread with tens of thousands. */
    private final Map<Integer, ThreadIo> ioByThread;
    /** Per file, per site method: built before the analysis threads start, read-only after. */
    private final Map<Integer, Map<String, SiteIndex>> sites;
    private final long[] threadWeight;
    /** The threads with weight in the current window: at most every thread once. */
    private final int[] touched;

    /**
     * The classifier must have {@link StackClassifier#precompute() precomputed} before {@link #worker()} copies run.
     *
     * @param siteMethods the methods taking the locks whose waits will be attributed from samples: indexed now
     * @param ioFrom      the number in {@code rec.io} of the window's first I/O event: those before it are what earlier
     *                    windows kept for the findings, and a window reads its own events, as it reads its own samples
     */
    public HolderAttributor(Recording rec, StackClassifier classifier, long[] intervals, java.util.Collection<String> siteMethods,
                            int ioFrom) {
        this.rec = rec;
        this.classifier = classifier;
        this.intervals = intervals;
        this.threadWeight = new long[rec.threads.size()];
        this.touched = new int[rec.threads.size()];
        this.threadsByFile = new HashMap<>();
        this.ioByThread = new HashMap<>();
        this.sites = SiteIndex.build(rec, classifier, intervals, siteMethods);
        for (ThreadInfo t : rec.threads) threadsByFile.computeIfAbsent(t.file(), k -> new ArrayList<>()).add(t);
        // Each thread's events' numbers, in the recording's order, then by start (ties in that order): the window's
        // events only, not again those every window before kept.
        IoEvents io = rec.io;
        int[][] byThread = io.byThread(ioFrom, rec.threads.size());
        for (int t = 0; t < byThread.length; t++) {
            int[] events = byThread[t];
            if (events == null) continue;
            IndexSort.sortByKey(events, io.starts(events), events.length);
            ioByThread.put(t, new ThreadIo(io, events));
        }
    }

    private HolderAttributor(HolderAttributor shared) {
        this.rec = shared.rec;
        this.classifier = shared.classifier;
        this.intervals = shared.intervals;
        this.threadWeight = new long[rec.threads.size()];
        this.touched = new int[rec.threads.size()];
        this.threadsByFile = shared.threadsByFile;
        this.ioByThread = shared.ioByThread;
        this.sites = shared.sites;
    }

    /** An attributor for another analysis thread: its own scratch arrays, the same indexes. */
    public HolderAttributor worker() {
        return new HolderAttributor(this);
    }

    public void attribute(Wait w) {
        long interval = intervals[w.file];
        // A thread in uninterruptible disk I/O is sampled only when the syscall returns (and then looks
        // runnable), so look one interval past the wait, and accept any state.
        long from = w.start - interval / 2;
        long to = w.end + interval;
        // Two methods, not one: C2 compiled the whole of it three times in a 391 MB report (up to 1.1 s each), once
        // more whenever the other kind of wait first came (a park, with no owner recorded, after monitor enters).
        if (w.recordedOwner >= 0) attributeRecorded(w, from, to, interval);
        else attributeFromSamples(w, from, to, interval);
    }

    /** A wait whose lock owner the recording names. */
    private void attributeRecorded(Wait w, long from, long to, long interval) {
        // What the owner did while holding: its samples inside the locked method (not those where it queues
        // for the lock again), else any of its samples then, else the nearest ones.
        ActivityTally a = activity(tally.reset(), w.recordedOwner, from, to, w.siteMethod, w.start, w.end);
        if (a.weight == 0) a = activity(a, w.recordedOwner, from, to, null, w.start, w.end);
        if (a.weight == 0) a = activity(a, w.recordedOwner, w.start - 2 * interval, w.end + 2 * interval, null, w.start, w.end);
        IoEvent event = ioEvent(w.recordedOwner, from, to);
        IoOp op = a.op(opOf(event));
        // Frames from a sample in that syscall, else from the recorded I/O event's own stack.
        int stack = !a.hasStackIn(op) && event != null && event.stack() > 0 && opOf(event) == op
                ? event.stack() : a.dominantStack(op);
        w.holder = new Holder(w.recordedOwner, Holder.RECORDED, 1.0, stack, op);
    }

    /** A wait whose owner is not recorded: the thread seen inside the locking method meanwhile, from samples. */
    private void attributeFromSamples(Wait w, long from, long to, long interval) {
        SiteIndex site = sites.getOrDefault(w.file, Map.of()).get(w.siteMethod);
        if (site == null) return; // nobody was ever seen inside the method
        if (site.tooBroad) {
            attributeByLanes(w, from, to, interval);
            return;
        }
        // A first pass over the window sums each thread's weight (the work of millions of waits: kept to loads,
        // compares and adds); a second one visits the winner's candidates only, to tally its stacks.
        // Samples inside the wait count four times those in the margins, which may show the next holder.
        int[] touched = this.touched;
        long[] threadWeight = this.threadWeight;
        int touchedCount = 0;
        long total = 0;
        int self = w.thread;
        long waitStart = w.start;
        long waitEnd = w.end;
        int firstPart = site.lastStartingBy(to);
        // The parts that may reach into the window, walked back to the first starting by its earliest reach. Bounded
        // by an index found beforehand and counted up from 0, so the loop always ends on one compare of a counter:
        // ending it on "no part left" in one window and on "part too early" in the next, or counting down to the
        // bound (a loop-limit check that failed now and then), made C2 throw the compiled method away, up to seven
        // times a report.
        int lowest = site.lastStartingBy(from - site.longestPart - 1) + 1;
        int partsIn = firstPart - lowest + 1;
        for (int back = 0; back < partsIn; back++) {
            SiteIndex.Part part = site.parts[firstPart - back];
            if (part.last < from) continue;
            long[] times = part.time;
            int[] threads = part.thread;
            char[] weights = part.weight;
            int end = part.slotStart[part.slot(to) + 1];
            for (int i = part.slotStart[part.slot(from)]; i < end; i++) {
                long time = times[i];
                if (time < from || time > to) continue;
                int t = threads[i];
                if (t == self) continue;
                int sw = weights[i];
                // A batched idle sample stands for many ticks, but only those inside the window count.
                long weight = sw <= 1 ? 1 : Math.max(1, Math.min(sw, 1 + (to - time) / Math.max(1, interval)));
                if (time >= waitStart && time <= waitEnd) weight <<= 2;
                long before = threadWeight[t];
                if (before == 0) touched[touchedCount++] = t;
                threadWeight[t] = before + weight;
                total += weight;
            }
        }
        int best = -1;
        for (int k = 0; k < touchedCount; k++) {
            int t = touched[k];
            if (best < 0 || threadWeight[t] > threadWeight[best] || (threadWeight[t] == threadWeight[best] && t < best)) best = t;
        }
        if (best < 0) return;
        long bestWeight = threadWeight[best];
        for (int k = 0; k < touchedCount; k++) threadWeight[touched[k]] = 0;
        // The winner's stacks in the window are few: tally them in reused arrays, not maps (millions of waits).
        // The sums do not depend on the order of the walk, nor does the pick below (most weight, then lowest id).
        int distinct = 0;
        long[] opWeight = this.opWeight;
        Arrays.fill(opWeight, 0);
        for (int back = 0; back < partsIn; back++) {
            SiteIndex.Part part = site.parts[firstPart - back];
            if (part.last < from) continue;
            int end = part.slotStart[part.slot(to) + 1];
            for (int i = part.slotStart[part.slot(from)]; i < end; i++) {
                if (part.thread[i] != best) continue;
                long time = part.time[i];
                if (time < from || time > to) continue;
                long weight = weightIn(time, part.weight[i], to, interval, w);
                int st = part.stack[i];
                opWeight[classifier.io(st).ordinal()] += weight;
                int k = 0;
                while (k < distinct && tallyStack[k] != st) k++;
                if (k == distinct) {
                    if (distinct == tallyStack.length) {
                        tallyStack = Arrays.copyOf(tallyStack, distinct * 2);
                        tallyWeight = Arrays.copyOf(tallyWeight, distinct * 2);
                    }
                    tallyStack[k] = st;
                    tallyWeight[k] = 0;
                    distinct++;
                }
                tallyWeight[k] += weight;
            }
        }
        IoOp op = ioOp(best, from, to);
        long opBest = 0;
        for (IoOp candidate : OPS) {
            if (candidate.storage() && opWeight[candidate.ordinal()] > opBest) {
                opBest = opWeight[candidate.ordinal()];
                op = candidate;
            }
        }
        // The frames that explain it: the most sampled stack, among those in that syscall when there are any.
        int stack = 0;
        long stackBest = -1;
        for (int k = 0; k < distinct; k++) {
            boolean inOp = opBest == 0 || classifier.io(tallyStack[k]) == op;
            if (inOp && (tallyWeight[k] > stackBest || (tallyWeight[k] == stackBest && tallyStack[k] < stack))) {
                stackBest = tallyWeight[k];
                stack = tallyStack[k];
            }
        }
        // Sure when one thread alone was seen inside the locked method, and seen for most of the wait.
        double share = (double) bestWeight / total;
        double coverage = Math.min(1.0, (double) bestWeight / 4 * interval / Math.max(w.duration(), interval));
        double confidence = Math.round(share * (0.5 + 0.5 * coverage) * 100) / 100.0;
        w.holder = new Holder(best, Holder.INFERRED, confidence, stack, op);
    }

    /** IoOp.values() copies its array on every call; this runs for every wait. */
    private static final IoOp[] OPS = IoOp.values();
    private final long[] opWeight = new long[OPS.length];
    private int[] tallyStack = new int[16];
    private long[] tallyWeight = new long[16];

    /** The slow way, for sites too broad to index: every thread's samples in the window. */
    private void attributeByLanes(Wait w, long from, long to, long interval) {
        int best = -1;
        ActivityTally bestTally = null;
        long total = 0;
        for (ThreadInfo t : threadsByFile.getOrDefault(w.file, List.of())) {
            if (t.id() == w.thread) continue;
            ActivityTally a = activity(new ActivityTally(), t.id(), from, to, w.siteMethod, w.start, w.end);
            if (a.weight == 0) continue;
            total += a.weight;
            if (bestTally == null || a.weight > bestTally.weight) {
                best = t.id();
                bestTally = a;
            }
        }
        if (best < 0) return;
        double share = (double) bestTally.weight / total;
        double coverage = Math.min(1.0, (double) bestTally.weight / 4 * interval / Math.max(w.duration(), interval));
        double confidence = Math.round(share * (0.5 + 0.5 * coverage) * 100) / 100.0;
        IoOp op = bestTally.op(ioOp(best, from, to));
        w.holder = new Holder(best, Holder.INFERRED, confidence, bestTally.dominantStack(op), op);
    }

    private static long weightIn(long time, int sw, long to, long interval, Wait w) {
        // A batched idle sample stands for many ticks, but only those inside the window count.
        long weight = sw <= 1 ? 1 : Math.max(1, Math.min(sw, 1 + (to - time) / Math.max(1, interval)));
        return time >= w.start && time <= w.end ? 4 * weight : weight;
    }

    /** The recorded owners' tally, reused: one per recorded wait (hundreds of thousands) cost three maps each. */
    private final ActivityTally tally = new ActivityTally();
    /** {@link #holdsInside} per stack for {@link #insideOf}: 0 not yet known, 1 inside, 2 not. */
    private byte[] inside = new byte[0];
    private String insideOf;

    /** Inside {@code method}, and not waiting for a lock taken at or above it. */
    private boolean holdsInside(int stack, String method) {
        // Known per stack for the method last asked about: the waits of a lock all ask about the method that takes it,
        // and each sample's frames were compared by name again for every wait that looked at it.
        if (!method.equals(insideOf)) {
            insideOf = method;
            Arrays.fill(inside, (byte) 0);
        }
        if (stack >= 0 && stack < inside.length && inside[stack] != 0) return inside[stack] == 1;
        int at = indexOf(stack, method);
        LockWaitSite s = at < 0 ? null : classifier.lockWait(stack);
        boolean holds = at >= 0 && (s == null || s.siteFrame() < at);
        if (stack >= 0) {
            if (stack >= inside.length) inside = Arrays.copyOf(inside, Math.max(stack + 1, inside.length * 2));
            inside[stack] = (byte) (holds ? 1 : 2);
        }
        return holds;
    }

    /**
     * What thread {@code t} did in [from, to], added to {@code a}. With {@code insideMethod}, only samples inside that
     * method that are not waiting for a lock taken there count: that is the holder's signature.
     */
    private ActivityTally activity(ActivityTally a, int t, long from, long to, String insideMethod, long waitStart, long waitEnd) {
        long interval = Math.max(1, intervals[rec.threads.get(t).file()]);
        for (Samples.Cursor c = rec.samples.lane(t).cursorAt(from); c.next() && c.time() <= to; ) {
            int stack = c.stack();
            if (insideMethod != null && !holdsInside(stack, insideMethod)) continue;
            long time = c.time();
            // Batched idle samples stand for many ticks, but only the part inside the window counts.
            int w = Math.max(1, Math.min(c.weight(), 1 + (int) ((to - time) / interval)));
            // Samples inside the wait say more than those in the margins, which may belong to the next holder.
            a.add(stack, time >= waitStart && time <= waitEnd ? 4L * w : w, classifier.io(stack));
        }
        return a;
    }

    private int indexOf(int stack, String method) {
        int[] f = rec.stacks.frames(stack);
        for (int i = 0; i < f.length; i++) {
            if (rec.frames.name(f[i]).equals(method)) return i;
        }
        return -1;
    }

    /** A recorded file or socket operation of {@code t} overlapping the window (JDK recordings have these). */
    private IoOp ioOp(int t, long from, long to) {
        return opOf(ioEvent(t, from, to));
    }

    /** A recorded file or socket operation of {@code t} overlapping the window, or null. */
    private IoEvent ioEvent(int t, long from, long to) {
        ThreadIo events = ioByThread.get(t);
        int i = events == null ? -1 : events.firstOverlapping(from, to);
        return i < 0 ? null : rec.io.get(i);
    }

    private static IoOp opOf(IoEvent e) {
        if (e == null) return IoOp.NONE;
        switch (e.type()) {
            case "FileWrite":
                return IoOp.WRITE;
            case "FileForce":
                return IoOp.FSYNC;
            case "FileRead":
                return IoOp.FILE_READ;
            default:
                return IoOp.SOCKET;
        }
    }

    /**
     * Samples of one thread in a window, by stack and by system call: a handful of stacks, tallied in arrays (a search
     * among them beats a map's boxing at this size).
     */
    static final class ActivityTally {
        private int[] stacks = new int[8];
        private long[] weights = new long[8];
        private IoOp[] stackOps = new IoOp[8];
        private int distinct;
        private final long[] opWeight = new long[OPS.length];
        long weight;

        ActivityTally reset() {
            distinct = 0;
            weight = 0;
            Arrays.fill(opWeight, 0);
            return this;
        }

        void add(int stack, long w, IoOp op) {
            weight += w;
            int k = 0;
            while (k < distinct && stacks[k] != stack) k++;
            if (k == distinct) {
                if (k == stacks.length) {
                    stacks = Arrays.copyOf(stacks, k * 2);
                    weights = Arrays.copyOf(weights, k * 2);
                    stackOps = Arrays.copyOf(stackOps, k * 2);
                }
                stacks[k] = stack;
                weights[k] = 0;
                stackOps[k] = op;
                distinct++;
            }
            weights[k] += w;
            if (op != IoOp.NONE) opWeight[op.ordinal()] += w;
        }

        boolean hasStackIn(IoOp op) {
            for (int k = 0; k < distinct; k++) {
                if (stackOps[k] == op) return true;
            }
            return false;
        }

        /**
         * The most sampled stack (the lowest id among equals), among those in {@code op} when there are any: the frames
         * that explain it; 0 when none.
         */
        int dominantStack(IoOp op) {
            boolean any = hasStackIn(op);
            int best = -1;
            for (int k = 0; k < distinct; k++) {
                if (any && stackOps[k] != op) continue;
                if (best < 0 || weights[k] > weights[best] || (weights[k] == weights[best] && stacks[k] < stacks[best])) best = k;
            }
            return best < 0 ? 0 : stacks[best];
        }

        /**
         * The storage call seen most (the later in IoOp's order among equals); a recorded I/O event is the fallback when
         * samples show none.
         */
        IoOp op(IoOp recorded) {
            IoOp best = null;
            for (IoOp o : OPS) {
                long w = opWeight[o.ordinal()];
                if (o.storage() && w > 0 && (best == null || w >= opWeight[best.ordinal()])) best = o;
            }
            return best == null ? recorded : best;
        }
    }
}
