package io.stallscope.agent.bootstrap;

import java.util.IdentityHashMap;
import java.util.Map;

/**
 * When each queued task was handed to its pool, by the task's own object (by identity: Kafka's RemoteStorageFetchInfo
 * is a record from 4.2, equal to another read's of the same partition and offset), until a pool thread takes it up, or
 * it is cancelled in the queue and that is seen ({@link #cancelled}: a remote read whose fetch expired). A task that
 * never runs otherwise (the pool rejected it, the broker stopped) stays until the table is full, then the table is
 * emptied: waits are lost, never memory. On the bootstrap class path with the hooks: keep it free of dependencies.
 */
public final class QueuedTasks {
    /** Far more than a remote-log-reader pool queues (its queue is bounded by the fetches in flight). */
    static final int MAX = 10_000;
    private static final Map<Object, Long> SUBMITTED = new IdentityHashMap<>();

    private QueuedTasks() {
    }

    /** A task is queued now; nothing is kept while no sink is installed. */
    public static void submitted(Object task) {
        if (task == null || Hooks.sink() == null) {
            return;
        }
        long now = System.nanoTime();
        synchronized (SUBMITTED) {
            if (SUBMITTED.size() >= MAX) {
                SUBMITTED.clear();
            }
            SUBMITTED.put(task, now);
        }
    }

    /**
     * A pool thread starts the task: its wait in the queue, from its submission to now, is recorded as {@code op}
     * (nothing when its submission was not seen: before an attach, or no sink).
     */
    public static void started(int op, Object task) {
        Long since = taken(task);
        if (since != null) {
            Hooks.waited(op, since, task);
        }
    }

    /**
     * The task was cancelled before a pool thread took it up (its Future is cancelled and it is still queued here): its
     * wait so far is recorded as {@code op} on this thread, the one that cancelled it, ended by {@code why} (the sink
     * counts it as the op's failure), and its entry goes. Nothing when it is not here: it started (its wait was
     * recorded then), or its submission was not seen.
     */
    public static void cancelled(int op, Object task, Throwable why) {
        Long since = taken(task);
        if (since != null) {
            Hooks.waited(op, since, task, why);
        }
    }

    /** When the task was submitted, and its entry gone; null when it was not here. */
    private static Long taken(Object task) {
        if (task == null) {
            return null;
        }
        synchronized (SUBMITTED) {
            return SUBMITTED.remove(task);
        }
    }

    static void clear() {
        synchronized (SUBMITTED) {
            SUBMITTED.clear();
        }
    }

    static int size() {
        synchronized (SUBMITTED) {
            return SUBMITTED.size();
        }
    }
}
