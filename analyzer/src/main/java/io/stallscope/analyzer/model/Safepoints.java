package io.stallscope.analyzer.model;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The safepoints read, put together from their pieces: the JDK writes a safepoint as several events
 * ({@code jdk.SafepointBegin}, {@code jdk.SafepointStateSynchronization}, {@code jdk.SafepointEnd},
 * {@code jdk.ExecuteVMOperation}) sharing a safepoint id, and the agent writes its {@code stallscope.SafepointSync} about
 * a second later, often in a later chunk. Pieces are keyed by file and id (ids are per JVM), so chunks may be read
 * and merged in any order. A safepoint is kept only once its sync is known (the JDK's sync event, else the agent's).
 */
public final class Safepoints {
    private final Map<Key, Parts> parts = new HashMap<>();

    private record Key(int file, long id) {
    }

    /** What one safepoint's events said so far; 0, -1 or null: not said. */
    private static final class Parts {
        String operation;
        long syncStart;
        long syncEnd;
        long end;
        int threads = -1;
        int runningAtStart = -1;
        boolean jdkSync;
        long agentSyncStart;
        long agentSyncEnd;
        Safepoint.Agent agent;

        void merge(Parts o) {
            if (o.operation != null) operation = o.operation;
            if (o.jdkSync) {
                jdkSync = true;
                syncStart = o.syncStart;
                syncEnd = o.syncEnd;
            }
            if (o.end != 0) end = o.end;
            if (o.threads >= 0) threads = o.threads;
            if (o.runningAtStart >= 0) runningAtStart = o.runningAtStart;
            if (o.agent != null) {
                agent = o.agent;
                agentSyncStart = o.agentSyncStart;
                agentSyncEnd = o.agentSyncEnd;
            }
        }
    }

    private Parts of(int file, long id) {
        return parts.computeIfAbsent(new Key(file, id), k -> new Parts());
    }

    /** {@code jdk.SafepointBegin}: how many Java threads the JVM had. */
    public void begin(int file, long id, int totalThreads) {
        if (totalThreads >= 0) of(file, id).threads = totalThreads;
    }

    /** {@code jdk.SafepointStateSynchronization}: the sync phase, and the threads still running Java code when it began. */
    public void sync(int file, long id, long start, long end, int initialRunning) {
        Parts p = of(file, id);
        p.jdkSync = true;
        p.syncStart = start;
        p.syncEnd = end;
        if (initialRunning >= 0) p.runningAtStart = initialRunning;
    }

    /** {@code jdk.SafepointEnd}: when the pause ended. */
    public void end(int file, long id, long time) {
        of(file, id).end = time;
    }

    /** {@code jdk.ExecuteVMOperation} run at this safepoint. */
    public void operation(int file, long id, String operation) {
        if (operation != null && !operation.isEmpty()) of(file, id).operation = operation;
    }

    /** The agent's {@code stallscope.SafepointSync}: its own account of the sync, and the op it paired it with (may be null). */
    public void agent(int file, long id, String operation, long syncStart, long syncNanos, int runningAtStart, int threads,
                      Safepoint.Agent agent) {
        Parts p = of(file, id);
        if (p.operation == null && operation != null && !operation.isEmpty()) p.operation = operation;
        p.agentSyncStart = syncStart;
        p.agentSyncEnd = syncStart + Math.max(0, syncNanos);
        if (p.runningAtStart < 0 && runningAtStart >= 0) p.runningAtStart = runningAtStart;
        if (p.threads < 0 && threads >= 0) p.threads = threads;
        p.agent = agent;
    }

    /** Adds another set's pieces (a chunk's): pieces of one safepoint join up whichever chunk they came from. */
    public void addAll(Safepoints other) {
        other.parts.forEach((k, p) -> parts.computeIfAbsent(k, x -> new Parts()).merge(p));
    }

    public boolean isEmpty() {
        return parts.isEmpty();
    }

    /**
     * Every safepoint whose sync is known, by sync start. The JDK's sync event wins over the agent's fields: it is
     * in ticks, the agent's start in milliseconds.
     */
    public List<Safepoint> all() {
        List<Safepoint> out = new ArrayList<>();
        parts.forEach((k, p) -> {
            if (!p.jdkSync && p.agent == null) return;
            long start = p.jdkSync ? p.syncStart : p.agentSyncStart;
            long end = p.jdkSync ? p.syncEnd : p.agentSyncEnd;
            out.add(new Safepoint(k.file(), k.id(), p.operation, start, end, p.end, p.threads, p.runningAtStart, p.agent, p.jdkSync));
        });
        out.sort(Comparator.comparingLong(Safepoint::syncStart).thenComparingInt(Safepoint::file).thenComparingLong(Safepoint::id));
        return out;
    }

    /** Those whose sync took at least {@code minSyncNanos}. */
    public List<Safepoint> slow(long minSyncNanos) {
        return all().stream().filter(s -> s.syncNanos() >= minSyncNanos).toList();
    }
}
