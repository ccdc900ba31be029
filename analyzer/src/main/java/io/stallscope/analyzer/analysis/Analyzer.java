package io.stallscope.analyzer.analysis;

import io.stallscope.analyzer.analysis.findings.FindingDetector;
import io.stallscope.analyzer.analysis.findings.SafepointReport;
import io.stallscope.analyzer.analysis.findings.SpanStalls;
import io.stallscope.analyzer.analysis.holders.Contention;
import io.stallscope.analyzer.analysis.holders.HolderAttributor;
import io.stallscope.analyzer.analysis.holders.LogLockPartitions;
import io.stallscope.analyzer.analysis.stacks.StackClassifier;
import io.stallscope.analyzer.analysis.waits.LongestWaits;
import io.stallscope.analyzer.analysis.waits.Wait;
import io.stallscope.analyzer.analysis.waits.WaitFinder;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.ThreadInfo;
import io.stallscope.analyzer.util.Parallel;
import io.stallscope.analyzer.util.Timing;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs the analysis steps in order: waits, holders, contentions, findings. Waits are found and attributed on
 * a few threads, in units (a slice of the recorded waits, or one thread's sampled waits); each unit tallies
 * its own contentions, and the tallies are merged in unit order, so the result is the same on any number of
 * threads.
 */
public final class Analyzer {
    private Analyzer() {
    }

    /** Waits kept for the timeline and for callers: all of them up to this many, else the longest. */
    static final int RETAINED_WAITS = 200_000;
    /** Recorded waits per unit of work. */
    private static final int RECORDED_PER_UNIT = 50_000;

    public static Analysis analyze(Recording rec, Options o) {
        return new StreamingAnalysis(rec, r -> o).finish(o);
    }

    /** One window's tallies, folded by {@link StreamingAnalysis} into the whole recording's. */
    record Window(Map<String, Contention> byLock, SpanStalls spans, LogLockPartitions.Tally logs, List<LongestWaits> retained,
                  long[] intervals) {
    }

    /**
     * Finds and attributes the waits of what {@code rec} holds now (all of it, or one window of chunks) and tallies
     * them per lock and per span; {@code retain} is how many of the longest waits each worker keeps.
     */
    static Window window(Recording rec, Options o, StackClassifier classifier, int retain) {
        return window(rec, o, classifier, retain, null, 0);
    }

    /**
     * As above; a wait no longer than {@code floor} (may be null) is not kept among the longest, and the window's I/O
     * events are those from number {@code ioFrom} in {@code rec.io} (those before it, earlier windows').
     */
    static Window window(Recording rec, Options o, StackClassifier classifier, int retain, Wait floor, int ioFrom) {
        Timing timing = Timing.start("analysis");
        rec.samples.sort();
        long[] intervals = WaitFinder.intervals(rec);
        classifier.precompute();
        timing.step("sort+intervals+classify");
        // Where a window's waits, with their holders, meet the agent's spans of the recording so far.
        SpanStalls spans = new SpanStalls(rec.spans, o);
        LogLockPartitions logs = new LogLockPartitions(rec.spans);
        WaitFinder.Recorded recorded = new WaitFinder(rec, classifier, intervals).recorded();
        HolderAttributor holders = new HolderAttributor(rec, classifier, intervals, WaitFinder.siteMethods(rec, classifier, recorded), ioFrom);
        timing.step("site indexes");

        int recordedUnits = (recorded.all().size() + RECORDED_PER_UNIT - 1) / RECORDED_PER_UNIT;
        // With samples to attribute from, recorded waits go in about time order: the waits of one unit then walk
        // the same few candidates, where event order (each thread's buffer in turn) sent each wait elsewhere in the
        // window. Without samples, event order reads the lock-event columns straight through.
        int[] order = rec.samples.size() > 0 ? recorded.roughTimeOrder() : null;
        timing.step("order");
        List<ThreadInfo> threads = rec.threads;
        int units = recordedUnits + threads.size();
        Part[] parts = new Part[units];
        List<Worker> workers;
        try {
            workers = Parallel.run(units, () -> new Worker(rec, o, classifier, intervals, holders.worker(), retain, floor), (w, u) -> {
                Part p = new Part(spans.part(), logs.tally());
                if (u < recordedUnits) {
                    List<Wait> all = recorded.all();
                    for (int j = u * RECORDED_PER_UNIT, to = Math.min(all.size(), (u + 1) * RECORDED_PER_UNIT); j < to; j++) {
                        w.handle(all.get(order == null ? j : order[j]), p);
                    }
                } else {
                    ThreadInfo t = threads.get(u - recordedUnits);
                    if (o.threadMatches(t.name())) w.finder.sampled(t, recorded, wait -> w.handle(wait, p));
                }
                parts[u] = p;
            });
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }

        timing.step("waits+holders");
        Map<String, Contention> byLock = new LinkedHashMap<>();
        LogLockPartitions.Tally logTally = logs.tally();
        for (Part p : parts) {
            p.byLock.forEach((k, c) -> {
                Contention mine = byLock.get(k);
                if (mine == null) byLock.put(k, c);
                else mine.merge(c);
            });
            spans.merge(p.spans);
            logTally.merge(p.logs);
        }
        // The same filter as Worker.handle: the convoy counts only waits the analysis counts.
        spans.addConvoys(recorded.all(), w -> w.end >= o.from() && w.start <= o.to() && w.duration() >= o.minWaitNanos()
                && o.threadMatches(rec.threadName(w.thread)));
        timing.step("merge");
        timing.print(System.err);
        return new Window(byLock, spans, logTally, workers.stream().map(w -> w.retained).toList(), intervals);
    }

    /** Orders the folded tallies and detects the findings: the analysis of the whole recording. */
    static Analysis finish(Recording rec, Options o, long[] intervals, StackClassifier classifier, Map<String, Contention> byLock,
                           List<Wait> retained, SpanStalls spans, LogLockPartitions.Tally logTally,
                           Analysis.Sampling sampling, SafepointReport safepoints) {
        Timing timing = Timing.start("analysis");
        List<Wait> waits = new ArrayList<>(retained);
        // A total order: the workers' lists come in whatever order their threads finished.
        waits.sort(Comparator.comparingLong((Wait w) -> w.start).thenComparingInt(w -> w.thread).thenComparing(LongestWaits.ORDER));
        List<Contention> contentions = new ArrayList<>(byLock.values());
        contentions.forEach(c -> c.logs = logTally.of(c.key));
        // By impact (time waited times threads waiting), the ties by total wait, then by key for a total order.
        Map<Contention, Double> impact = new java.util.IdentityHashMap<>();
        contentions.forEach(c -> impact.put(c, c.impact()));
        contentions.sort(Comparator.comparingDouble((Contention c) -> impact.get(c)).reversed()
                .thenComparing(Comparator.comparingLong((Contention c) -> c.totalWaitNanos).reversed())
                .thenComparing(c -> c.key));

        Analysis partial = new Analysis(rec, o, intervals, classifier, waits, contentions, List.of(), sampling, safepoints);
        List<Finding> findings = new FindingDetector(partial, spans.stalls()).detect();
        timing.step("findings");
        timing.print(System.err);
        return new Analysis(rec, o, intervals, classifier, waits, contentions, findings, sampling, safepoints);
    }

    /** One unit's tallies. */
    private static final class Part {
        final Map<String, Contention> byLock = new LinkedHashMap<>();
        final SpanStalls spans;
        final LogLockPartitions.Tally logs;

        Part(SpanStalls spans, LogLockPartitions.Tally logs) {
            this.spans = spans;
            this.logs = logs;
        }
    }

    /** One analysis thread: its wait finder and attributor (caches, scratch arrays) and the longest waits it saw. */
    private static final class Worker {
        final Recording rec;
        final Options o;
        final WaitFinder finder;
        final HolderAttributor holders;
        /** The longest waits this thread saw; together the workers' hold the overall longest. */
        final LongestWaits retained;

        Worker(Recording rec, Options o, StackClassifier classifier, long[] intervals, HolderAttributor holders, int retain, Wait floor) {
            this.retained = new LongestWaits(retain, floor);
            this.rec = rec;
            this.o = o;
            this.finder = new WaitFinder(rec, classifier, intervals);
            this.holders = holders;
        }

        void handle(Wait w, Part p) {
            if (w.end < o.from() || w.start > o.to() || w.duration() < o.minWaitNanos()) return;
            if (w.recorded && !o.threadMatches(rec.threadName(w.thread))) return;
            holders.attribute(w);
            // Looked up before it is made: a lambda that captures the wait was allocated on every call.
            Contention c = p.byLock.get(w.lockKey);
            if (c == null) p.byLock.put(w.lockKey, c = new Contention(w));
            c.add(w);
            p.spans.add(w);
            if (w.holder != null) p.logs.add(w.lockKey, w.siteMethod, w.holder.thread(), w.start, w.end);
            retained.offer(w);
        }
    }
}
