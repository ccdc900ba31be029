package io.stallscope.testcontainers;

/** The agent's mitigations (its {@code mitigate} option). */
public enum Mitigation {
    /** Kafka 2.8-3.6: the producer-state snapshot fsync leaves the roll, as in 3.7. */
    ROLL_FLUSH("roll-flush"),
    /** Warm the page cache for fetches on the request handler, not the network thread. */
    PREFETCH("prefetch");

    private final String label;

    Mitigation(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
