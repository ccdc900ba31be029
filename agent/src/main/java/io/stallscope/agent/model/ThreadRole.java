package io.stallscope.agent.model;

/** What a broker thread does, as far as its name tells. The label values are part of the metric API. */
public enum ThreadRole {
    NETWORK("network"),
    REQUEST_HANDLER("request_handler"),
    SCHEDULER("scheduler"),
    REPLICA_FETCHER("replica_fetcher"),
    LOG_CLEANER("log_cleaner"),
    CONTROLLER("controller"),
    OTHER("other");

    private static final ThreadRole[] VALUES = values();
    private final String label;

    ThreadRole(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    public static ThreadRole of(int ordinal) {
        return VALUES[ordinal];
    }
}
