package io.stallscope.agent.report.blame;

import io.stallscope.agent.bootstrap.OpTrace;
import io.stallscope.agent.bootstrap.ThreadRegistry;
import io.stallscope.agent.bootstrap.ThreadState;
import io.stallscope.agent.model.ThreadRole;

import java.util.function.Function;

/**
 * What the other threads were doing during one slow op, copied on the slow op's thread: each thread's state read
 * once, and of it only the ops that ran at the same time as the slow op for {@link OverlapRanking#MIN_OVERLAP_NANOS}
 * or more (an op around such an op overlaps as much, so the ranking's nesting checks still see it). No path is
 * resolved and nothing is ranked here: that is {@link #rank}'s work, on whichever thread can afford it.
 */
public final class Overlapping {
    /** Threads kept at most: a stall that overlaps more threads' ops than this is named from the first ones. */
    static final int MAX_THREADS = 64;

    private final long start;
    private final long end;
    private final long now;
    private final String[] names = new String[MAX_THREADS];
    /** The role label the thread's own sink cached for its name, or null: then classified when ranked. */
    private final String[] roles = new String[MAX_THREADS];
    private final OpTrace[] traces = new OpTrace[MAX_THREADS];
    private int size;

    private Overlapping(long start, long end, long now) {
        this.start = start;
        this.end = end;
        this.now = now;
    }

    /**
     * Reads every other thread's ops that overlapped [start, end]; {@code now} is the time an op still running is
     * counted up to (the slow op's end, read once).
     */
    static Overlapping copy(ThreadState self, long start, long end, long now) {
        Overlapping out = new Overlapping(start, end, now);
        OpTrace scratch = new OpTrace();
        for (ThreadState other : ThreadRegistry.live()) {
            Thread owner = other.owner();
            if (other == self || owner == null || !other.read(scratch)) {
                continue;
            }
            OpTrace kept = out.overlappingOf(scratch);
            if (kept != null) {
                String name = owner.getName();
                int cached = other.role;
                out.names[out.size] = name;
                out.roles[out.size] = cached >= 0 && other.roleName == name ? ThreadRole.of(cached).label() : null;
                out.traces[out.size] = kept;
                if (++out.size == MAX_THREADS) {
                    break;
                }
            }
        }
        return out;
    }

    private OpTrace overlappingOf(OpTrace ops) {
        OpTrace kept = null;
        for (int i = 0; i < ops.size(); i++) {
            long opEnd = ops.end(i) == OpTrace.RUNNING ? now : ops.end(i);
            if (Math.min(opEnd, end) - Math.max(ops.start(i), start) < OverlapRanking.MIN_OVERLAP_NANOS) {
                continue;
            }
            if (kept == null) {
                kept = new OpTrace();
            }
            kept.add(ops.op(i), ops.depth(i), ops.start(i), ops.end(i), ops.subject(i));
        }
        return kept;
    }

    /** Threads copied. */
    public int threads() {
        return size;
    }

    /** The most likely culprit of the slow {@code op} on {@code path}, or null; resolves the copied ops' paths. */
    Culprit rank(int op, String path, Function<Object, String> pathOf, LogDirDevices devices,
                 Function<String, String> roleOfName) {
        OverlapRanking ranking = new OverlapRanking(op, path, start, end, now, pathOf, devices);
        for (int i = 0; i < size; i++) {
            ranking.consider(names[i], roles[i] != null ? roles[i] : roleOfName.apply(names[i]), traces[i]);
        }
        return ranking.culprit();
    }
}
