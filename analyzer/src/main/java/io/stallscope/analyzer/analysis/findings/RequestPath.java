package io.stallscope.analyzer.analysis.findings;

import io.stallscope.analyzer.analysis.KafkaThreads;

/**
 * Which broker threads a client waits on. A request handler or a network thread that stalls delays the requests
 * queued on it; a replica fetcher that stalls makes followers lag (and acks=all producers wait for them). A
 * scheduler's flush or the log cleaner delays nobody unless one of those threads waits for it.
 */
final class RequestPath {
    private RequestPath() {
    }

    /** A thread whose stall a client feels, by the agent's role label. */
    static boolean onRole(String role) {
        return KafkaThreads.REQUEST_HANDLER.equals(role) || KafkaThreads.NETWORK.equals(role)
            || KafkaThreads.REPLICA_FETCHER.equals(role);
    }

    static boolean on(String threadName) {
        return onRole(KafkaThreads.role(threadName));
    }

    /** A broker thread that does background work only: its stall hurts a client only through a thread that waited for it. */
    static boolean background(String threadName) {
        String role = KafkaThreads.role(threadName);
        return KafkaThreads.SCHEDULER.equals(role) || KafkaThreads.LOG_CLEANER.equals(role);
    }
}
