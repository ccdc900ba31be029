package io.stallscope.analyzer.analysis;

import io.stallscope.analyzer.model.Recording;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Runs the analysis steps in order: waits, holders, contentions, findings. */
public final class Analyzer {
    private Analyzer() {
    }

    public static Analysis analyze(Recording rec, Options o) {
        rec.samples.sort();
        long[] intervals = WaitFinder.intervals(rec);
        StackClassifier classifier = new StackClassifier(rec.frames, rec.stacks);
        List<Wait> waits = new ArrayList<>();
        for (Wait w : new WaitFinder(rec, classifier, intervals).find()) {
            if (!o.threadMatches(rec.threadName(w.thread)) || w.end < o.from() || w.start > o.to()) continue;
            if (w.duration() < o.minWaitNanos()) continue;
            waits.add(w);
        }
        waits.sort(Comparator.comparingLong((Wait w) -> w.start).thenComparingInt(w -> w.thread));
        HolderAttributor holders = new HolderAttributor(rec, classifier, intervals);
        waits.forEach(holders::attribute);

        Map<String, Contention> byLock = new LinkedHashMap<>();
        for (Wait w : waits) byLock.computeIfAbsent(w.lockKey, k -> new Contention(w)).add(w);
        List<Contention> contentions = new ArrayList<>(byLock.values());
        contentions.sort(Comparator.comparingLong((Contention c) -> c.totalWaitNanos).reversed()
                .thenComparing(c -> c.key));

        Analysis partial = new Analysis(rec, o, intervals, classifier, waits, contentions, List.of());
        List<Finding> findings = new FindingDetector(partial).detect();
        return new Analysis(rec, o, intervals, classifier, waits, contentions, findings);
    }
}
