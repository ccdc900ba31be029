package io.stallscope.agent.model;

import io.stallscope.agent.bootstrap.Op;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * The one declaration of each op: its metric label, its JFR event type, its help text and the thread
 * roles it runs on in Kafka. Metrics, JMX, JFR events, options and the reference tables are derived from
 * it. In {@link Op} id order ({@code ordinal() == id}, checked by a test), since advice carries the plain
 * int id and indexes arrays with it.
 */
public enum OpKind {
    SEGMENT_FLUSH("segment_flush", "SegmentFlush", "Segment Flush",
        "LogSegment.flush: fsync of a segment's log and indexes",
        // the flush-log job and log flusher; flush.messages on the append path; the cleaner's swap;
        // the KRaft metadata log on its raft thread
        ThreadRole.SCHEDULER, ThreadRole.REQUEST_HANDLER, ThreadRole.REPLICA_FETCHER, ThreadRole.LOG_CLEANER,
        ThreadRole.CONTROLLER),
    RECORDS_APPEND("records_append", "RecordsAppend", "Records Append",
        "FileRecords.append: write(2) of a batch to the active segment",
        ThreadRole.REQUEST_HANDLER, ThreadRole.REPLICA_FETCHER, ThreadRole.LOG_CLEANER, ThreadRole.CONTROLLER),
    INDEX_RESIZE("index_resize", "IndexResize", "Index Resize",
        "AbstractIndex.resize: remap (and ftruncate) of an offset or time index",
        // other: the thread applying metadata (KRaft's metadata loader) when a partition is created or led
        ThreadRole.REQUEST_HANDLER, ThreadRole.REPLICA_FETCHER, ThreadRole.SCHEDULER, ThreadRole.LOG_CLEANER,
        ThreadRole.CONTROLLER, ThreadRole.OTHER),
    TRANSFER_TO("transfer_to", "TransferTo", "Transfer To",
        "FileChannel.transferTo: sendfile(2) from a file to a socket or file",
        // fetch responses are sent by the listener's network threads, the controller's own listener too
        ThreadRole.NETWORK, ThreadRole.CONTROLLER),
    LOG_ROLL("log_roll", "LogRoll", "Log Roll",
        "Log/UnifiedLog.roll: a new active segment, under the partition lock",
        // on append (size, time, index full), on retention deleting every segment, on the metadata log
        ThreadRole.REQUEST_HANDLER, ThreadRole.REPLICA_FETCHER, ThreadRole.SCHEDULER, ThreadRole.CONTROLLER),
    SNAPSHOT_TAKE("snapshot_take", "SnapshotTake", "Snapshot Take",
        "ProducerStateManager.takeSnapshot on roll",
        // other: the metadata loader, when a partition is created or changes leader
        ThreadRole.REQUEST_HANDLER, ThreadRole.REPLICA_FETCHER, ThreadRole.SCHEDULER, ThreadRole.CONTROLLER,
        ThreadRole.OTHER),
    SNAPSHOT_WRITE("snapshot_write", "SnapshotWrite", "Snapshot Write",
        "Producer-state snapshot file write, with its fsync where the version does it inline",
        ThreadRole.REQUEST_HANDLER, ThreadRole.REPLICA_FETCHER, ThreadRole.SCHEDULER, ThreadRole.CONTROLLER),
    SNAPSHOT_FLUSH("snapshot_flush", "SnapshotFlush", "Snapshot Flush",
        "Producer-state snapshot fsync moved off the roll (Kafka 3.7+)",
        ThreadRole.SCHEDULER),
    SEGMENT_INACTIVE("segment_inactive", "SegmentInactive", "Segment Inactive",
        "LogSegment.onBecomeInactiveSegment: index trims and ftruncate on roll",
        ThreadRole.REQUEST_HANDLER, ThreadRole.REPLICA_FETCHER, ThreadRole.SCHEDULER, ThreadRole.CONTROLLER),
    SEGMENT_READ("segment_read", "SegmentRead", "Segment Read",
        "LogSegment.read on the fetch path",
        // consumer and follower fetches on handlers; alter-log-dirs copies; the metadata log's readers; other:
        // a fetch that waited in purgatory, completed by its expiration reaper thread
        ThreadRole.REQUEST_HANDLER, ThreadRole.REPLICA_FETCHER, ThreadRole.CONTROLLER, ThreadRole.OTHER),
    TLS_TRANSFER("tls_transfer", "TlsTransfer", "TLS Transfer",
        "SslTransportLayer.transferFrom: a TLS listener reads the file with FileChannel.read",
        ThreadRole.NETWORK, ThreadRole.CONTROLLER),
    LOG_APPEND("log_append", "LogAppend", "Log Append",
        "Log/UnifiedLog.append: a whole append under the log's lock; its time outside the ops inside it is mostly"
            + " the wait for that lock",
        // produce on handlers, follower appends on fetchers, the KRaft metadata log on its raft thread
        ThreadRole.REQUEST_HANDLER, ThreadRole.REPLICA_FETCHER, ThreadRole.CONTROLLER),
    INDEX_LOOKUP("index_lookup", "IndexLookup", "Index Lookup",
        "OffsetIndex/TimeIndex.lookup: a binary search of a memory-mapped index; a page fault there (a cold index on a"
            + " slow disk) holds every safepoint, and so every thread of the broker, up",
        // fetches and ListOffsets on handlers; other roles (a purgatory's reaper) get their series when they occur
        ThreadRole.REQUEST_HANDLER),
    INDEX_REMAP_WAIT("index_remap_wait", "IndexRemapWait", "Index Remap Wait",
        "AbstractIndex.inRemapReadLock: a lookup's wait for the index's remap lock while a resize (a roll's trim) or a"
            + " close holds it to unmap (KAFKA-19390; Kafka 3.9.2, 4.0.2, 4.1.1 and later); timed only when it waits",
        // the lookups of fetches and ListOffsets, on handlers
        ThreadRole.REQUEST_HANDLER),
    REMOTE_FETCH("remote_fetch", "RemoteFetch", "Remote Fetch",
        "RemoteStorageManager.fetchLogSegment: the tiered-storage plugin opens a remote segment's records for a read"
            + " (the stream it returns is read after the call, inside remote reads)",
        // other: the remote-log-reader pool's threads (consumer fetches from the remote tier); request handlers: a
        // ListOffsets by timestamp in the remote tier, synchronous up to 3.9 (KAFKA-15859, asynchronous from 4.0)
        ThreadRole.OTHER, ThreadRole.REQUEST_HANDLER),
    REMOTE_FETCH_INDEX("remote_fetch_index", "RemoteFetchIndex", "Remote Fetch Index",
        "RemoteStorageManager.fetchIndex: the tiered-storage plugin fetches one index of a remote segment (the path"
            + " ends in the index type: .index, .timeindex, .txnindex, .snapshot, .leader-epoch-checkpoint)",
        // other: the remote-log-reader pool, filling RemoteIndexCache; request handlers: a ListOffsets by timestamp
        // up to 3.9; replica fetchers: a follower building its state from the remote tier (leader epochs, snapshot)
        ThreadRole.OTHER, ThreadRole.REQUEST_HANDLER, ThreadRole.REPLICA_FETCHER),
    REMOTE_COPY("remote_copy", "RemoteCopy", "Remote Copy",
        "RemoteStorageManager.copyLogSegmentData: the tiered-storage plugin copies a rolled segment and its indexes to"
            + " the remote tier",
        // other: the remote log manager's copy threads (kafka-rlm-thread-pool, kafka-rlm-copy-thread-pool from 3.9)
        ThreadRole.OTHER),
    REMOTE_DELETE("remote_delete", "RemoteDelete", "Remote Delete",
        "RemoteStorageManager.deleteLogSegmentData: the tiered-storage plugin deletes a remote segment",
        // other: the remote log manager's expiration threads, and the deletion of a topic
        ThreadRole.OTHER),
    REMOTE_QUEUE_WAIT("remote_queue_wait", "RemoteQueueWait", "Remote Queue Wait",
        "A remote read's wait in the remote-log-reader pool's queue, from RemoteLogManager.asyncRead (a fetch's handler"
            + " hands it over) to the read's start on a pool thread; reported with remote_read, on the pool's thread;"
            + " a read cancelled in the queue when its fetch expired (DelayedRemoteFetch.onExpiration), up to then, on"
            + " the purgatory's thread, failed",
        // other: reported by the remote-log-reader thread that takes the read up, or by the RemoteFetch purgatory's
        // timer thread (executor-RemoteFetch) that expires the fetch
        ThreadRole.OTHER),
    REMOTE_READ("remote_read", "RemoteRead", "Remote Read",
        "RemoteLogReader.call: a consumer's read from the remote tier on the remote-log-reader pool, with its index"
            + " lookups (RemoteIndexCache, remote_fetch_index on a miss) and the plugin's remote_fetch inside",
        ThreadRole.OTHER),
    REMOTE_INDEX_LOAD("remote_index_load", "RemoteIndexLoad", "Remote Index Load",
        "RemoteIndexCache.createCacheEntry: a miss of the remote index cache, and its load of the segment's offset, time"
            + " and transaction indexes (from the cache's own directory, else through the plugin's remote_fetch_index);"
            + " its count is the cache's misses",
        // other: the remote-log-reader pool; a request handler's ListOffsets by time (up to 3.9) gets its series when
        // it first occurs there: the idle series' budget has no room for a pair that most brokers never see
        ThreadRole.OTHER);

    /** The JFR event types' common prefix, e.g. stallscope.RecordsAppend. */
    public static final String EVENT_PREFIX = "stallscope.";
    private static final OpKind[] VALUES = values();

    private final String label;
    private final String eventName;
    private final String eventLabel;
    private final String help;
    private final Set<ThreadRole> roles;

    OpKind(String label, String eventSuffix, String eventLabel, String help, ThreadRole first, ThreadRole... more) {
        this.label = label;
        this.eventName = EVENT_PREFIX + eventSuffix;
        this.eventLabel = eventLabel;
        this.help = help;
        this.roles = Collections.unmodifiableSet(EnumSet.of(first, more));
    }

    /** The op's id as advice carries it. */
    public int id() {
        return ordinal();
    }

    /** The metric label and option suffix, e.g. records_append. */
    public String label() {
        return label;
    }

    /** The JFR event type, e.g. stallscope.RecordsAppend. */
    public String eventName() {
        return eventName;
    }

    /** The JFR event's display label, e.g. "Records Append". */
    public String eventLabel() {
        return eventLabel;
    }

    /** What the op is, for the JFR event's description and the docs. */
    public String help() {
        return help;
    }

    /**
     * The roles whose threads run this op in Kafka: their series exist from the start. Any other role an op
     * turns up on (a thread name Kafka does not use, a plugin's thread) gets its series when it first occurs.
     */
    public Set<ThreadRole> roles() {
        return roles;
    }

    public boolean expectedOn(ThreadRole role) {
        return roles.contains(role);
    }

    public static OpKind of(int id) {
        return VALUES[id];
    }

    public static int count() {
        return VALUES.length;
    }

    /** The op's metric label by id: the name the operator sees. */
    public static String name(int id) {
        return VALUES[id].label;
    }

    /** The op with this label, or null. */
    public static OpKind byLabel(String label) {
        for (OpKind k : VALUES) {
            if (k.label.equals(label)) {
                return k;
            }
        }
        return null;
    }
}
