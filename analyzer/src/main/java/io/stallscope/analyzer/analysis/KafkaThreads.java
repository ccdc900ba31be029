package io.stallscope.analyzer.analysis;

import java.util.regex.Pattern;

/** Kafka broker thread roles, by the names brokers 2.8 to 4.1+ give their threads. */
public final class KafkaThreads {
    private static final Pattern NETWORK = Pattern.compile("^data-plane-kafka-network-thread-|kafka-network-thread");
    private static final Pattern HANDLER = Pattern.compile("^data-plane-kafka-request-handler-|kafka-request-handler");
    private static final Pattern SCHEDULER = Pattern.compile("^kafka-scheduler-");
    private static final Pattern FETCHER = Pattern.compile("^ReplicaFetcherThread-");
    private static final Pattern CLEANER = Pattern.compile("^kafka-log-cleaner-thread-");

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

    public static String role(String name) {
        if (name == null) return "other";
        if (NETWORK.matcher(name).find()) return "network";
        if (HANDLER.matcher(name).find()) return "request-handler";
        if (SCHEDULER.matcher(name).find()) return "scheduler";
        if (FETCHER.matcher(name).find()) return "replica-fetcher";
        if (CLEANER.matcher(name).find()) return "log-cleaner";
        return "other";
    }
}
