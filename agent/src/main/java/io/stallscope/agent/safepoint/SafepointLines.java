package io.stallscope.agent.safepoint;

import io.stallscope.agent.logging.LineBudget;

import java.util.Locale;
import java.util.function.Consumer;

/**
 * The slow line of a safepoint whose synchronization took at least the threshold, at most {@code perMinute} a
 * minute (slow.log.per.minute, as for ops); the ones over it are counted and named in the next line that gets out.
 */
final class SafepointLines {
    private final Consumer<String> warn;
    private final LineBudget budget;

    SafepointLines(Consumer<String> warn, int perMinute) {
        this.warn = warn;
        this.budget = new LineBudget(perMinute);
    }

    void slow(SafepointSync sync, SafepointHolder holder) {
        if (!budget.admit()) {
            return;
        }
        String line = format(sync, holder);
        long suppressed = budget.takeSuppressed();
        if (suppressed > 0) {
            line += " (" + suppressed + " more slow safepoints not logged: over slow.log.per.minute)";
        }
        warn.accept(line);
    }

    /** @param holder the thread that most likely held the safepoint up, or null: then the line names none */
    static String format(SafepointSync sync, SafepointHolder holder) {
        StringBuilder sb = new StringBuilder(160);
        sb.append("slow op=safepoint_sync duration_ms=")
            .append(String.format(Locale.ROOT, "%.3f", sync.syncNanos / 1e6))
            .append(" vm_operation=").append(sync.operation)
            .append(" safepoint_id=").append(sync.safepointId);
        if (sync.safepoints > 1) {
            sb.append(" safepoints=").append(sync.safepoints); // their syncs summed: the counters do not split them
        }
        if (sync.totalThreads >= 0) {
            sb.append(" threads=").append(sync.totalThreads);
        }
        if (sync.initialRunning >= 0) {
            sb.append(" running_at_start=").append(sync.initialRunning);
        }
        sb.append(": ").append(holder == null ? "every thread of the broker waited for the last ones to stop"
            : holder.describe());
        return sb.toString();
    }
}
