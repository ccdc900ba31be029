package io.stallscope.agent.report.blame;

import io.stallscope.agent.bootstrap.ThreadRegistry;
import io.stallscope.agent.bootstrap.ThreadState;
import io.stallscope.agent.model.SubjectPaths;
import io.stallscope.agent.model.ThreadRoles;

/**
 * Names the op a slow op waited behind, from what every other thread that runs timed ops is doing and has just
 * done ({@link ThreadRegistry}), in two steps: {@link #copy} on the thread whose op was slow (each other thread's
 * state read once, without stopping it; a thread whose state changed while it was read is skipped), then
 * {@link #rank}, which resolves paths and may run on another thread.
 */
public final class BlameFinder {
    private final ThreadRoles roles;

    public BlameFinder(ThreadRoles roles) {
        this.roles = roles;
    }

    /**
     * On the slow op's thread: the other threads' ops during [start, end], or null when {@code path} is in no
     * partition directory (nothing could be named, so no thread is read). A remote read's queue wait has no such place
     * and is paired with the pool's reads, its own thread's last one included.
     */
    public Overlapping copy(ThreadState self, int op, String path, long start, long end) {
        boolean pool = OverlapRanking.selfMayHold(op);
        return OpPlace.of(path) == null && !pool ? null : Overlapping.copy(pool ? null : self, start, end, System.nanoTime());
    }

    /** The most likely culprit of {@code op}, which ran on {@code path}, among the copied ops; or null. */
    public Culprit rank(int op, String path, Overlapping overlapping, LogDirDevices devices) {
        return overlapping == null ? null
            : overlapping.rank(op, path, SubjectPaths::pathOf, devices, name -> roles.classify(name).label());
    }

    /** Both steps at once: the most likely culprit of {@code op}, which ran [start, end] on {@code path}, or null. */
    public Culprit find(int op, ThreadState self, String path, long start, long end, LogDirDevices devices) {
        return rank(op, path, copy(self, op, path, start, end), devices);
    }
}
