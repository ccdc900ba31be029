package io.stallscope.analyzer.model;

/** A sampled thread's state, normalised across producers (each chunk names its own state constants). */
public enum State {
    RUNNABLE, SLEEPING, BLOCKED, PARKED, WAITING, NATIVE, UNKNOWN;

    private static final State[] VALUES = values();

    public static State of(int ordinal) {
        return VALUES[ordinal];
    }

    /** Maps a producer's state name (JDK "STATE_PARKED", async-profiler "STATE_SLEEPING") to ours. */
    public static State fromName(String name) {
        if (name == null) return UNKNOWN;
        String n = name.toUpperCase();
        if (n.contains("RUNNABLE") || n.contains("RUNNING")) return RUNNABLE;
        if (n.contains("BLOCKED") || n.contains("MONITOR")) return BLOCKED;
        if (n.contains("PARK")) return PARKED;
        if (n.contains("SLEEP")) return SLEEPING;
        if (n.contains("WAIT")) return WAITING;
        if (n.contains("NATIVE")) return NATIVE;
        return UNKNOWN;
    }
}
