package io.stallscope.agent.report.blame;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.bootstrap.OpTrace;

import java.util.function.Function;

/**
 * Builds other threads' ops by hand for {@link OverlapRankingTest}, in milliseconds. A class of its own so that the
 * test class names no hook class in a signature: JUnit would load it before the hooks are on the bootstrap path.
 */
final class Threads {
    static final long MS = 1_000_000L;
    /** A double, as {@link #op} takes its times: converts back to {@link OpTrace#RUNNING} exactly. */
    static final double RUNNING = OpTrace.RUNNING;
    private static final Function<Object, String> PATH = o -> (String) o;

    private final OverlapRanking ranking;
    private OpTrace current;
    private String thread;
    private String role;

    private Threads(int victimOp, String victimPath, long startMs, long endMs, long nowMs, LogDirDevices devices) {
        ranking = new OverlapRanking(victimOp, victimPath, startMs * MS, endMs * MS, nowMs * MS, PATH, devices);
    }

    /** A slow op on {@code victimPath} that ran [startMs, endMs]; ops still running are counted up to nowMs. */
    static Threads victim(String victimPath, long startMs, long endMs, long nowMs, LogDirDevices devices) {
        return new Threads(Op.RECORDS_APPEND, victimPath, startMs, endMs, nowMs, devices);
    }

    static Threads victim(String victimPath, long startMs, long endMs) {
        return victim(victimPath, startMs, endMs, endMs, LogDirDevices.NONE);
    }

    /** A slow {@code victimOp} (an {@link Op}) on {@code victimPath} that ran [startMs, endMs]. */
    static Threads victim(int victimOp, String victimPath, long startMs, long endMs) {
        return new Threads(victimOp, victimPath, startMs, endMs, endMs, LogDirDevices.NONE);
    }

    /** An append of the log {@code logPath} slow for its wait for the log's lock, [startMs, endMs]. */
    static Threads lockWait(String logPath, long startMs, long endMs) {
        return new Threads(Op.LOG_APPEND, logPath, startMs, endMs, endMs, LogDirDevices.NONE);
    }

    /** The following ops run on this thread. */
    Threads thread(String name, String threadRole) {
        flush();
        current = new OpTrace();
        thread = name;
        role = threadRole;
        return this;
    }

    /** An op at {@code depth} (0: outermost) that ran [startMs, endMs]; endMs {@link #RUNNING} while it runs. */
    Threads op(int op, int depth, String path, double startMs, double endMs) {
        current.add(op, depth, (long) (startMs * MS), endMs == RUNNING ? OpTrace.RUNNING : (long) (endMs * MS), path);
        return this;
    }

    boolean applies() {
        return ranking.applies();
    }

    Culprit culprit() {
        flush();
        return ranking.culprit();
    }

    private void flush() {
        if (current != null) {
            ranking.consider(thread, role, current);
            current = null;
        }
    }
}
