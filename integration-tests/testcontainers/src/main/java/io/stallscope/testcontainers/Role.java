package io.stallscope.testcontainers;

/** The broker thread kinds an op ran on, as the agent's {@code role} label names them. */
public enum Role {
    NETWORK, REQUEST_HANDLER, SCHEDULER, REPLICA_FETCHER, LOG_CLEANER, CONTROLLER, OTHER;

    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
