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
    /** Per thread, how deep it is inside DelayedFetch.onComplete: there a fetch is completed, not handled. */
    private static final ThreadLocal<int[]> COMPLETING = ThreadLocal.withInitial(() -> new int[1]);

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

    /**
     * mitigate.prefetch.check.locks: a warm-up may run only on the thread that handles the fetch, with no
     * partition lock and not under the replica state change lock; never on a purgatory's own threads: its
     * timer's executor ("executor-Fetch", which runs every expired DelayedFetch, one at a time) or its
     * ExpirationReaper.
     */
    private static void selfCheck(Object replicaManager) throws ReflectiveOperationException {
        metrics.event(PartitionLocks.heldByCurrentThread(replicaManager) > 0 ? "under_partition_lock" : "lock_checked");
        if (PartitionLocks.stateChangeLockHeld(replicaManager)) {
            metrics.event("under_state_change_lock");
        }
        String thread = Thread.currentThread().getName();
        if (thread.startsWith("executor-") || thread.startsWith("ExpirationReaper")) {
            metrics.event("on_purgatory_thread");
        }
    }

    /** On entering DelayedFetch.onComplete. */
    public static void completionEntered() {
        COMPLETING.get()[0]++;
    }

    /** On leaving it, also by an exception. */
    public static void completionExited() {
        COMPLETING.get()[0]--;
    }

    public static void afterFetchRead(Object replicaManager, Object[] args, Object results) {
        FetchWarmer w = warmer;
        if (w == null) {
            return;
        }
        if (FetchReadResults.fromPurgatory(args) || COMPLETING.get()[0] > 0) {
            // a DelayedFetch completes on whichever thread gets there (the purgatory's timer thread, a produce's
            // handler, a StopReplica under replicaStateChangeLock): not there
            if (checkLocks) {
                metrics.event("from_purgatory");
            }
            return;
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
                selfCheck(replicaManager);
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
