package io.stallscope.agent.report.blame;

import io.stallscope.agent.bootstrap.OpTrace;
import io.stallscope.agent.bootstrap.ThreadRegistry;
import io.stallscope.agent.bootstrap.ThreadState;
import io.stallscope.agent.model.SubjectPaths;
import io.stallscope.agent.model.ThreadRole;
import io.stallscope.agent.model.ThreadRoles;

/**
 * Names the op a slow op waited behind, from what every other thread that runs timed ops is doing and has just
 * done ({@link ThreadRegistry}). Runs on the slow path only, on the thread whose op was slow: it reads each
 * thread's state without stopping it, and skips a thread whose state changed while it was read.
 */
public final class BlameFinder {
    private final ThreadRoles roles;

    public BlameFinder(ThreadRoles roles) {
        this.roles = roles;
    }

    /** The most likely culprit of {@code op}, which ran [start, end] on {@code self}'s thread on {@code path}, or null. */
    public Culprit find(int op, ThreadState self, String path, long start, long end, LogDirDevices devices) {
        OverlapRanking ranking = new OverlapRanking(op, path, start, end, System.nanoTime(), SubjectPaths::pathOf,
            devices);
        if (!ranking.applies()) {
            return null;
        }
        OpTrace trace = new OpTrace();
        for (ThreadState other : ThreadRegistry.live()) {
            Thread owner = other.owner();
            if (other == self || owner == null || !other.read(trace) || trace.size() == 0) {
                continue;
            }
            String name = owner.getName();
            ranking.consider(name, roleOf(other, name), trace);
        }
        return ranking.culprit();
    }

    private String roleOf(ThreadState state, String name) {
        int cached = state.role;
        // the role the thread's own sink cached, if it is for this name; otherwise classify it here
        return cached >= 0 && state.roleName == name ? ThreadRole.of(cached).label() : roles.classify(name).label();
    }
}
