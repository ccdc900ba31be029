package io.stallscope.agent.bootstrap;

/**
 * The ops' ids as compile-time constants, so that advice inlined into Kafka's and the JDK's classes
 * carries a plain int, not a reference to an enum. Everything else about an op (its name, event, roles,
 * help) is declared once in {@code io.stallscope.agent.model.OpKind}, in this id order (a test checks it).
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
    /** Log/UnifiedLog.append as a whole: its own time, outside the ops inside it, is the wait for the log's lock. */
    public static final int LOG_APPEND = 11;
    /** OffsetIndex/TimeIndex.lookup: a page fault in the mapped index holds every safepoint of the JVM up. */
    public static final int INDEX_LOOKUP = 12;
    /** A lookup's wait for its index's remap lock while a resize or close holds it (Kafka 3.9.2, 4.0.2, 4.1.1+). */
    public static final int INDEX_REMAP_WAIT = 13;
    /** RemoteStorageManager.fetchLogSegment, either overload, through Kafka's ClassLoaderAwareRemoteStorageManager. */
    public static final int REMOTE_FETCH = 14;
    /** RemoteStorageManager.fetchIndex (offset, time, transaction index, producer snapshot, leader epochs). */
    public static final int REMOTE_FETCH_INDEX = 15;
    /** RemoteStorageManager.copyLogSegmentData: a rolled segment and its indexes copied to the remote tier. */
    public static final int REMOTE_COPY = 16;
    /** RemoteStorageManager.deleteLogSegmentData. */
    public static final int REMOTE_DELETE = 17;
    /** A remote read's wait in the remote-log-reader pool's queue, from RemoteLogManager.asyncRead to the read's start. */
    public static final int REMOTE_QUEUE_WAIT = 18;
    /** RemoteLogReader.call: a remote read on the remote-log-reader pool, its plugin calls and index loads inside. */
    public static final int REMOTE_READ = 19;
    /** RemoteIndexCache.createCacheEntry: a cache miss, and the load of the segment's indexes it makes. */
    public static final int REMOTE_INDEX_LOAD = 20;
    public static final int COUNT = 21;

    private Op() {
    }
}
