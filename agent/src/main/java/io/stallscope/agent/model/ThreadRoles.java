package io.stallscope.agent.model;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Derives a thread's role from its name, across Kafka's naming schemes:
 * <pre>
 *   data-plane-kafka-network-thread-1-ListenerName(PLAINTEXT)-PLAINTEXT-0   (2.8 - 4.0)
 *   data-plane-kafka-network-thread-1-PLAINTEXT-PLAINTEXT-0                 (4.1+)
 *   data-plane-kafka-network-thread-1-ListenerName(CONTROLLER)-PLAINTEXT-0  (KRaft controller listener)
 *   data-plane-kafka-request-handler-3, kafka-scheduler-0, ReplicaFetcherThread-0-2,
 *   kafka-log-cleaner-thread-0, kafka-1-raft-io-thread, quorum-controller-1-event-handler
 * </pre>
 * The listener name in a network thread's name is the operator's choice, so which listeners
 * belong to the controller is configuration, not a fixed string.
 */
public final class ThreadRoles {
    private static final String NETWORK_THREAD = "-network-thread-";
    private final Set<String> controllerListeners;

    public ThreadRoles(List<String> controllerListeners) {
        Set<String> names = new LinkedHashSet<>();
        for (String name : controllerListeners) {
            names.add(name.trim());
        }
        this.controllerListeners = Collections.unmodifiableSet(names);
    }

    public Set<String> controllerListeners() {
        return controllerListeners;
    }

    public ThreadRole classify(String name) {
        if (name == null) {
            return ThreadRole.OTHER;
        }
        int net = name.indexOf(NETWORK_THREAD);
        if (net >= 0) {
            String listener = listenerOf(name, net + NETWORK_THREAD.length());
            return listener != null && controllerListeners.contains(listener)
                ? ThreadRole.CONTROLLER : ThreadRole.NETWORK;
        }
        if (name.contains("kafka-request-handler-")) {
            return ThreadRole.REQUEST_HANDLER;
        }
        if (name.startsWith("kafka-scheduler-")) {
            return ThreadRole.SCHEDULER;
        }
        if (name.startsWith("ReplicaFetcherThread-") || name.startsWith("ReplicaAlterLogDirsThread-")) {
            return ThreadRole.REPLICA_FETCHER;
        }
        if (name.startsWith("kafka-log-cleaner-thread-")) {
            return ThreadRole.LOG_CLEANER;
        }
        if (name.contains("raft-io-thread") || name.startsWith("quorum-controller-")
            || name.equals("controller-event-thread") || name.contains("raft-outbound-request-thread")) {
            return ThreadRole.CONTROLLER;
        }
        return ThreadRole.OTHER;
    }

    /**
     * After "-network-thread-": "{node}-ListenerName({listener})-{protocol}-{n}" up to 4.0,
     * "{node}-{listener}-{protocol}-{n}" from 4.1. Returns null when the shape is unknown.
     */
    static String listenerOf(String name, int from) {
        int dash = name.indexOf('-', from);
        if (dash < 0) {
            return null;
        }
        String rest = name.substring(dash + 1);
        if (rest.startsWith("ListenerName(")) {
            int close = rest.indexOf(')');
            return close < 0 ? null : rest.substring("ListenerName(".length(), close);
        }
        // listener names may not contain '-'? They may (any [A-Za-z0-9_-] in config); the protocol
        // and the thread number are the last two dash-separated parts, the listener is what precedes.
        int last = rest.lastIndexOf('-');
        if (last <= 0) {
            return null;
        }
        int secondLast = rest.lastIndexOf('-', last - 1);
        return secondLast <= 0 ? null : rest.substring(0, secondLast);
    }
}
