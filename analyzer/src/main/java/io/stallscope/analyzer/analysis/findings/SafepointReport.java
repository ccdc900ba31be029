package io.stallscope.analyzer.analysis.findings;

import io.stallscope.analyzer.analysis.Options;
import io.stallscope.analyzer.analysis.holders.SafepointHolders;
import io.stallscope.analyzer.analysis.holders.SampledHolders;
import io.stallscope.analyzer.analysis.holders.SlowSafepoint;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.Safepoint;

import java.util.List;

/**
 * The slow safepoints within --from/--to, worst first, with what held each up; and how many safepoints the
 * recording has at all ({@code recorded}: 0 when it has no safepoint events, so the reports can say they were not
 * recorded rather than that none was slow).
 */
public record SafepointReport(long minSyncNanos, int recorded, List<SlowSafepoint> slow) {

    public static SafepointReport of(Recording rec, Options o, SampledHolders sampled) {
        List<Safepoint> all = rec.safepoints.all();
        List<Safepoint> slow = all.stream().filter(s -> s.syncNanos() >= o.slowSafepointNanos()
                && s.syncEnd() >= o.from() && s.syncStart() <= o.to()).toList();
        return new SafepointReport(o.slowSafepointNanos(), all.size(), new SafepointHolders(rec, sampled).explain(slow));
    }

    /** Time to safepoint summed over the slow ones: how long the JVM's threads stood stopped, waiting. */
    public long totalSyncNanos() {
        return slow.stream().mapToLong(s -> s.safepoint().syncNanos()).sum();
    }

    public long longestSyncNanos() {
        return slow.stream().mapToLong(s -> s.safepoint().syncNanos()).max().orElse(0);
    }
}
