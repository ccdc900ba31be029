package io.stallscope.agent.mitigate;

import io.stallscope.agent.kafka.FetchReadResults;
import io.stallscope.agent.kafka.PartitionLocks;

import java.util.ArrayList;
import java.util.List;

/** Called from the advice on the exit of ReplicaManager's read of a fetch; does nothing unless prefetch is installed. */
public final class PrefetchHooks {
    private static volatile FetchWarmer warmer;
    private static volatile PrefetchMetrics metrics;
    private static volatile boolean checkLocks;

    private PrefetchHooks() {
    }

    static void install(FetchWarmer w, PrefetchMetrics m, boolean checkPartitionLocks) {
        metrics = m;
        checkLocks = checkPartitionLocks;
        warmer = w;
    }

    static FetchWarmer uninstall() {
        FetchWarmer was = warmer;
        warmer = null;
        return was;
    }

    public static void afterFetchRead(Object replicaManager, Object[] args, Object results) {
        FetchWarmer w = warmer;
        if (w == null || FetchReadResults.fromPurgatory(args)) {
            return; // a DelayedFetch completes on whichever thread fills it (a produce's handler): not there
        }
        try {
            List<FileSlice> slices = new ArrayList<>();
            for (Object info : FetchReadResults.fetchDataInfos(results)) {
                FileSlice s = FileSlice.of(info);
                if (s != null) {
                    slices.add(s);
                }
            }
            if (checkLocks && !slices.isEmpty()) {
                // the self-check of mitigate.prefetch.check.locks: no partition lock may be held here
                metrics.event(PartitionLocks.heldByCurrentThread(replicaManager) > 0 ? "under_partition_lock" : "lock_checked");
            }
            w.warm(slices);
        } catch (Throwable t) {
            // the fetch goes on exactly as without the mitigation: the network thread reads the disk
            PrefetchMetrics m = metrics;
            if (m != null) {
                m.failed(t);
            }
        }
    }
}
