package io.stallscope.analyzer.analysis.findings;

import io.stallscope.analyzer.analysis.KafkaThreads;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.Span;

/**
 * The agent's tiered-storage ops (docs/tiered-storage.md), by the names its events carry: a read's wait in the
 * remote-log-reader pool's queue, the read on the pool, and the calls that reach the remote tier (the plugin's
 * fetches, copies and deletes; a miss of the remote index cache).
 */
final class RemoteOps {
    static final String QUEUE_WAIT = "remote_queue_wait";
    static final String READ = "remote_read";
    static final String PREFIX = "remote_";
    /** A remote read's wait is paired with the reads that held its pool at this scope (the agent's Scope.POOL). */
    static final String POOL_SCOPE = "pool";

    private RemoteOps() {
    }

    static boolean is(Span s, String op) {
        return op.equals(s.opName());
    }

    /**
     * A call that reaches the remote tier from the thread it runs on: the plugin's remote_fetch, remote_fetch_index,
     * remote_copy, remote_delete, and remote_index_load. Not the queue wait nor the read, which only the pool runs.
     */
    static boolean call(Span s) {
        String op = s.opName();
        return op.startsWith(PREFIX) && !op.equals(QUEUE_WAIT) && !op.equals(READ);
    }

    /** The span ran on a request handler: by the agent's role label, else by its thread's name. */
    static boolean onRequestHandler(Span s, Recording rec) {
        if (s.threadRole() != null && !s.threadRole().isEmpty()) return KafkaThreads.REQUEST_HANDLER.equals(s.threadRole());
        return KafkaThreads.REQUEST_HANDLER.equals(KafkaThreads.role(rec.threadName(s.thread())));
    }

    /** "orders-7", else "an unknown partition": a remote read whose fetch info the agent could not read. */
    static String partition(Span s) {
        String tp = s.topicPartition();
        return tp == null ? "an unknown partition" : tp;
    }
}
