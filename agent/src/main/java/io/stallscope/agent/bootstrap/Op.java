package io.stallscope.agent.bootstrap;

/**
 * The operations the agent times. Ids are compile-time constants so that advice inlined into
 * Kafka's and the JDK's classes carries a plain int, not a reference to an enum.
 * This class lives on the bootstrap class path: keep it free of dependencies.
 */
public final class Op {
    public static final int SEGMENT_FLUSH = 0;
    public static final int RECORDS_APPEND = 1;
    public static final int INDEX_RESIZE = 2;
    public static final int TRANSFER_TO = 3;
    public static final int LOG_ROLL = 4;
    public static final int SNAPSHOT_TAKE = 5;
    public static final int SNAPSHOT_WRITE = 6;
    public static final int SNAPSHOT_FLUSH = 7;
    public static final int SEGMENT_INACTIVE = 8;
    public static final int SEGMENT_READ = 9;
    public static final int TLS_TRANSFER = 10;
    public static final int COUNT = 11;

    private static final String[] NAMES = {
        "segment_flush", "records_append", "index_resize", "transfer_to", "log_roll",
        "snapshot_take", "snapshot_write", "snapshot_flush", "segment_inactive", "segment_read",
        "tls_transfer"
    };

    private Op() {
    }

    public static String name(int op) {
        return NAMES[op];
    }

    /** Returns the id of the op with this metric label, or -1. */
    public static int byName(String name) {
        for (int i = 0; i < NAMES.length; i++) {
            if (NAMES[i].equals(name)) {
                return i;
            }
        }
        return -1;
    }
}
