package io.stallscope.analyzer.analysis;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Kafka broker thread roles, by the names brokers 2.8 to 4.4 give their threads, spelled as the agent's
 * {@code role} label and its events' {@code threadRole} ({@code request_handler}, not {@code request-handler}),
 * so a report that shows both shows one name. The agent's {@code ThreadRole} is the source: {@code
 * KafkaThreadsTest} checks these names against the role list the agent generates into the README, and the
 * classification against the agent's own table of thread names. The analyzer keeps its own table because it
 * reads recordings without agent events too (async-profiler, plain JFR), and does not depend on the agent.
 */
public final class KafkaThreads {
    public static final String NETWORK = "network";
    public static final String REQUEST_HANDLER = "request_handler";
    public static final String SCHEDULER = "scheduler";
    public static final String REPLICA_FETCHER = "replica_fetcher";
    public static final String LOG_CLEANER = "log_cleaner";
    public static final String CONTROLLER = "controller";
    public static final String OTHER = "other";
    /** In the agent's order. */
    public static final List<String> ROLES = List.of(NETWORK, REQUEST_HANDLER, SCHEDULER, REPLICA_FETCHER, LOG_CLEANER,
        CONTROLLER, OTHER);

    /** The agent's default controller listener, CONTROLLER: its network threads serve the KRaft quorum. */
    private static final Pattern CONTROLLER_LISTENER = Pattern.compile("-network-thread-\\d+-(ListenerName\\(CONTROLLER\\)|CONTROLLER)-");
    private static final Pattern NETWORK_THREAD = Pattern.compile("^data-plane-kafka-network-thread-|kafka-network-thread");
    private static final Pattern HANDLER = Pattern.compile("^data-plane-kafka-request-handler-|kafka-request-handler");
    private static final Pattern SCHEDULER_THREAD = Pattern.compile("^kafka-scheduler-");
    private static final Pattern FETCHER = Pattern.compile("^(ReplicaFetcherThread-|ReplicaAlterLogDirsThread-)");
    private static final Pattern CLEANER = Pattern.compile("^kafka-log-cleaner-thread-");
    private static final Pattern QUORUM = Pattern.compile("raft-io-thread|^quorum-controller-|^controller-event-thread$|raft-outbound-request-thread");

    private KafkaThreads() {
    }

    /**
     * Threads of the tools watching the broker, never the subject of a Kafka finding: the Stallscope agent's own
     * ({@code stallscope-capture} writes and syncs the capture file), the JDK's Flight Recorder's and async-profiler's.
     */
    private static final Pattern TOOL = Pattern.compile("^(stallscope-|JFR |Async-profiler )");

    public static boolean isTool(String name) {
        return name != null && TOOL.matcher(name).find();
    }

    /** {@code data-plane-} and a network thread's {@code ListenerName(X)-}: what every broker thread or listener repeats. */
    private static final Pattern REPEATED = Pattern.compile("^data-plane-(?=kafka-)|ListenerName\\(([^)]*)\\)-(?=\\w)");

    /**
     * A broker thread's name without what its neighbours repeat, for a lane label:
     * {@code data-plane-kafka-network-thread-1-ListenerName(PLAINTEXT)-PLAINTEXT-0} is
     * {@code kafka-network-thread-1-PLAINTEXT-PLAINTEXT-0}. Other names are kept.
     */
    public static String shortName(String name) {
        return name == null ? null : REPEATED.matcher(name).replaceAll(m -> m.group(1) == null ? "" : m.group(1) + "-");
    }

    /** Roles by thread name, found once: findings ask for the role of a thread per event (a regex search each). */
    private static final java.util.concurrent.ConcurrentHashMap<String, String> ROLE_OF = new java.util.concurrent.ConcurrentHashMap<>();

    public static String role(String name) {
        if (name == null) return OTHER;
        String role = ROLE_OF.get(name);
        if (role != null) return role;
        role = roleByName(name);
        if (ROLE_OF.size() < 100_000) ROLE_OF.put(name, role);
        return role;
    }

    private static String roleByName(String name) {
        if (NETWORK_THREAD.matcher(name).find()) return CONTROLLER_LISTENER.matcher(name).find() ? CONTROLLER : NETWORK;
        if (HANDLER.matcher(name).find()) return REQUEST_HANDLER;
        if (SCHEDULER_THREAD.matcher(name).find()) return SCHEDULER;
        if (FETCHER.matcher(name).find()) return REPLICA_FETCHER;
        if (CLEANER.matcher(name).find()) return LOG_CLEANER;
        if (QUORUM.matcher(name).find()) return CONTROLLER;
        return OTHER;
    }
}
