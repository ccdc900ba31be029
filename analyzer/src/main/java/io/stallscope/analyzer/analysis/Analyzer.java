package io.stallscope.analyzer.analysis;

import io.stallscope.analyzer.model.Recording;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/** Runs the analysis steps in order: waits, holders, contentions, findings. */
public final class Analyzer {
    private Analyzer() {
    }

    /** Waits kept for the timeline and for callers: all of them up to this many, else the longest. */
    static final int RETAINED_WAITS = 200_000;

    public static Analysis analyze(Recording rec, Options o) {
        rec.samples.sort();
        long[] intervals = WaitFinder.intervals(rec);
        StackClassifier classifier = new StackClassifier(rec.frames, rec.stacks);
        HolderAttributor holders = new HolderAttributor(rec, classifier, intervals);
        Map<String, Contention> byLock = new LinkedHashMap<>();
        SpanStalls spanStalls = new SpanStalls(rec.spans, o);
        PriorityQueue<Wait> retained = new PriorityQueue<>(Comparator.comparingLong(Wait::duration));
        new WaitFinder(rec, classifier, intervals).find(w -> {
            if (!o.threadMatches(rec.threadName(w.thread)) || w.end < o.from() || w.start > o.to()) return;
            if (w.duration() < o.minWaitNanos()) return;
            holders.attribute(w);
            byLock.computeIfAbsent(w.lockKey, k -> new Contention(w)).add(w);
            spanStalls.add(w);
            // Once full, only a wait longer than the shortest kept one goes in (most don't: no heap work).
            if (retained.size() < RETAINED_WAITS) {
                retained.add(w);
            } else if (w.duration() > retained.peek().duration()) {
                retained.poll();
                retained.add(w);
            }
        });
        List<Wait> waits = new ArrayList<>(retained);
        waits.sort(Comparator.comparingLong((Wait w) -> w.start).thenComparingInt(w -> w.thread));
        List<Contention> contentions = new ArrayList<>(byLock.values());
        contentions.sort(Comparator.comparingLong((Contention c) -> c.totalWaitNanos).reversed()
                .thenComparing(c -> c.key));

        Analysis partial = new Analysis(rec, o, intervals, classifier, waits, contentions, List.of());
        List<Finding> findings = new FindingDetector(partial, spanStalls.stalls()).detect();
        return new Analysis(rec, o, intervals, classifier, waits, contentions, findings);
    }
}
