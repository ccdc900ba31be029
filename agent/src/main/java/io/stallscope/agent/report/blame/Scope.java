package io.stallscope.agent.report.blame;

/** What a slow op and the op it overlapped shared, narrowest first: the order blame ranks them in. */
public enum Scope {
    /** The same file: XFS's inode lock (a sendfile of the segment a handler writes). */
    FILE("file", "of the same file"),
    /** The same partition directory: the log's lock (a roll and its snapshot while appends wait). */
    LOG("log", "of the same log"),
    /**
     * The same log dir, or log dirs on the same device: one queue of disk requests. Named only for an op that waited
     * on the disk itself (an fsync, a read) and not as the slow op did.
     */
    DEVICE("device", "on the same device"),
    /**
     * The same pool of threads: a remote read queued while every remote-log-reader thread ran another read. Only a
     * queued read's wait is paired at this scope, with the reads that held the pool.
     */
    POOL("pool", "in the same reader pool");

    private final String label;
    private final String phrase;

    Scope(String label, String phrase) {
        this.label = label;
        this.phrase = phrase;
    }

    /** The JFR field's and the metric label's value. */
    public String label() {
        return label;
    }

    /** How the slow-op line says it, e.g. "of the same file". */
    public String phrase() {
        return phrase;
    }

    /** True when this scope is narrower than {@code other} (null: none at all). */
    public boolean narrowerThan(Scope other) {
        return other == null || ordinal() < other.ordinal();
    }
}
