package io.stallscope.agent.safepoint;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Joins the JVM's three events of one safepoint by its id: jdk.SafepointBegin (how many threads), 
 * jdk.SafepointStateSynchronization (how long the threads took to stop) and jdk.ExecuteVMOperation (what for). A
 * sync is passed on once its operation is known; one whose operation never comes (a safepoint with no operation
 * event, or one lost in a chunk's rotation) goes out as "unknown" once more than {@link #PENDING} younger ones
 * are waiting. Called from one thread, the stream's.
 */
final class SafepointJoin {
    static final int PENDING = 32;

    private final Consumer<SafepointSync> out;
    private final Map<Long, Partial> pending = new LinkedHashMap<>();

    private static final class Partial {
        long startEpochNanos = -1;
        long syncNanos = -1;
        int initialRunning = -1;
        int totalThreads = -1;
        String operation;
    }

    SafepointJoin(Consumer<SafepointSync> out) {
        this.out = out;
    }

    void begin(long id, int totalThreads) {
        partial(id).totalThreads = totalThreads;
    }

    void synchronization(long id, long startEpochNanos, long syncNanos, int initialRunning) {
        Partial p = partial(id);
        p.startEpochNanos = startEpochNanos;
        p.syncNanos = syncNanos;
        p.initialRunning = initialRunning;
        complete(id, p);
    }

    void operation(long id, String operation) {
        Partial p = partial(id);
        if (p.operation == null) {
            // a safepoint that runs several operations is told by its first
            p.operation = operation;
        }
        complete(id, p);
    }

    private Partial partial(long id) {
        Partial p = pending.get(id);
        if (p == null) {
            p = new Partial();
            pending.put(id, p);
            if (pending.size() > PENDING) {
                Map.Entry<Long, Partial> oldest = pending.entrySet().iterator().next();
                pending.remove(oldest.getKey());
                if (oldest.getValue().syncNanos >= 0) {
                    emit(oldest.getKey(), oldest.getValue(), "unknown");
                }
            }
        }
        return p;
    }

    private void complete(long id, Partial p) {
        if (p.syncNanos >= 0 && p.operation != null) {
            pending.remove(id);
            emit(id, p, p.operation);
        }
    }

    private void emit(long id, Partial p, String operation) {
        out.accept(new SafepointSync(id, p.startEpochNanos, p.syncNanos, operation, p.initialRunning, p.totalThreads));
    }
}
