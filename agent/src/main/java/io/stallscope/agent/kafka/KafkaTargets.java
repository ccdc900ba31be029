package io.stallscope.agent.kafka;

import net.bytebuddy.description.field.FieldDescription;
import net.bytebuddy.description.type.TypeDescription;

import java.io.File;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import static net.bytebuddy.matcher.ElementMatchers.isPrivate;
import static net.bytebuddy.matcher.ElementMatchers.isStatic;
import static net.bytebuddy.matcher.ElementMatchers.nameEndsWith;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.returns;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;
import static net.bytebuddy.matcher.ElementMatchers.takesNoArguments;

/**
 * Everything the agent knows of Kafka's classes: every method a timing point or a mitigation hooks, where
 * it has lived from Kafka 2.8 on, and in which versions it is absent and why. Points and mitigations name
 * an entry here and nothing else; {@code KafkaTargetsTest} resolves every entry against every supported
 * version's jars. docs/architecture.md says how to add a version or a target.
 */
public final class KafkaTargets {
    /** Scala broker code, kafka_2.13. */
    private static final String LOG = "kafka.log.";
    /** Java storage code, kafka-storage (indexes and producer state from 3.5, segments from 3.7, logs from 4.0/4.1). */
    private static final String STORAGE = "org.apache.kafka.storage.internals.log.";
    /** kafka-clients; FileRecords and MemoryRecords moved to record.internal in 4.3. */
    private static final String RECORD = "org.apache.kafka.common.record.";
    private static final String NETWORK = "org.apache.kafka.common.network.";
    /** Scala server code, kafka_2.13 (ReplicaManager is Scala up to 4.4). */
    private static final String SERVER = "kafka.server.";
    /** Tiered storage (KIP-405), kafka-storage; its plugin API (RemoteStorageManager, the metadata) is kafka-storage-api. */
    private static final String REMOTE_STORAGE = "org.apache.kafka.server.log.remote.storage.";
    private static final String REMOTE_ABSENT = "no tiered storage (KIP-405), no remote-storage plugin to call";
    private static final String REMOTE_READ_ABSENT = "no reads from the remote tier (RemoteLogReader came in 3.6)";

    // ---- timing points ----

    public static final KafkaTarget SEGMENT_FLUSH = KafkaTarget.named("segment.flush", "LogSegment.flush()")
        .in(LOG + "LogSegment", STORAGE + "LogSegment")
        .shape(named("flush").and(takesNoArguments()).and(returns(void.class)))
        .build();

    public static final KafkaTarget RECORDS_APPEND = KafkaTarget.named("records.append", "FileRecords.append(MemoryRecords)")
        .in(RECORD + "FileRecords", RECORD + "internal.FileRecords")
        .shape(named("append").and(takesArguments(1)).and(takesArgument(0, nameEndsWith(".MemoryRecords")))
            .and(returns(int.class)))
        .build();

    /** TimeIndex overrides resize (and calls super under its own lock); OffsetIndex does not. */
    public static final KafkaTarget INDEX_RESIZE = KafkaTarget.named("index.resize", "AbstractIndex.resize(int)")
        .in(LOG + "AbstractIndex", LOG + "TimeIndex", LOG + "OffsetIndex",
            STORAGE + "AbstractIndex", STORAGE + "TimeIndex", STORAGE + "OffsetIndex")
        .overrideOnlyIn(LOG + "TimeIndex", LOG + "OffsetIndex", STORAGE + "TimeIndex", STORAGE + "OffsetIndex")
        .shape(named("resize").and(takesArguments(int.class)).and(returns(boolean.class)))
        .build();

    /**
     * OffsetIndex.lookup(long) and TimeIndex.lookup(long), in every version: where a fetch or a ListOffsets reads a
     * memory-mapped index; and the read of an index's last entry when it is opened or truncated. None calls another;
     * the lambdas 3.5+ wrap them in are not matched.
     */
    public static final KafkaTarget INDEX_LOOKUP = KafkaTarget.named("index.lookup",
            "OffsetIndex/TimeIndex.lookup(long), and their last entry's read at open")
        .in(LOG + "OffsetIndex", LOG + "TimeIndex", STORAGE + "OffsetIndex", STORAGE + "TimeIndex")
        .shape(named("lookup").and(takesArguments(long.class))
            // private, every version: the index's constructor reads its last entry, the first page a cold index
            // faults on (a lazily opened segment's, after a restart); TimeIndex.lastEntry() is the cached copy
            .or(isPrivate().and(takesNoArguments()).and(named("lastEntry").or(named("lastEntryFromIndexFile")))))
        .build();

    /**
     * AbstractIndex.inRemapReadLock, both overloads: where every lookup of an index takes its remap lock shared, which
     * a resize (a roll's trim) and a close take exclusively to unmap (KAFKA-19390). By the jars on Maven Central, in
     * 3.9.2, 4.0.2 and from 4.1.1; not in 3.9.0, 3.9.1, 4.0.0, 4.0.1, 4.1.0, nor before.
     */
    public static final KafkaTarget INDEX_REMAP_READ_LOCK = KafkaTarget.named("index.remap.read.lock",
            "AbstractIndex.inRemapReadLock(...)")
        .in(STORAGE + "AbstractIndex")
        .shape(named("inRemapReadLock").and(takesArguments(1)))
        .inRanges("no remap lock (KAFKA-19390 came in 3.9.2, 4.0.2 and 4.1.1): lookups wait for no unmap",
            "3.9.2", "4.0.0", "4.0.2", "4.1.0", "4.1.1", null)
        .verify(KafkaTargets::hasRemapLock)
        .build();

    /**
     * The tiered-storage plugin's calls, through the wrapper Kafka puts around every plugin: the plugin's own class is
     * the operator's choice, ClassLoaderAwareRemoteStorageManager is Kafka's (kafka-storage, from 3.5; each method
     * sets the plugin's context class loader and calls the delegate in a lambda, which is not matched). Both
     * fetchLogSegment overloads, (metadata, start) and (metadata, start, end): neither calls the other.
     */
    public static final KafkaTarget REMOTE_FETCH_SEGMENT = KafkaTarget.named("remote.fetchLogSegment",
            "RemoteStorageManager.fetchLogSegment(RemoteLogSegmentMetadata,int[,int])")
        .in(REMOTE_STORAGE + "ClassLoaderAwareRemoteStorageManager")
        .shape(named("fetchLogSegment").and(not(isStatic())).and(takesArguments(2).or(takesArguments(3)))
            .and(takesArgument(0, nameEndsWith(".RemoteLogSegmentMetadata"))).and(takesArgument(1, int.class)))
        .since("3.5", REMOTE_ABSENT)
        .build();

    /** fetchIndex(metadata, IndexType): one index of a remote segment, for RemoteIndexCache or a follower's state. */
    public static final KafkaTarget REMOTE_FETCH_INDEX = KafkaTarget.named("remote.fetchIndex",
            "RemoteStorageManager.fetchIndex(RemoteLogSegmentMetadata,IndexType)")
        .in(REMOTE_STORAGE + "ClassLoaderAwareRemoteStorageManager")
        .shape(named("fetchIndex").and(not(isStatic())).and(takesArguments(2))
            .and(takesArgument(0, nameEndsWith(".RemoteLogSegmentMetadata")))
            .and(takesArgument(1, nameEndsWith("RemoteStorageManager$IndexType"))))
        .since("3.5", REMOTE_ABSENT)
        .build();

    /** copyLogSegmentData(metadata, LogSegmentData): returns void in 3.5, Optional<CustomMetadata> from 3.6. */
    public static final KafkaTarget REMOTE_COPY = KafkaTarget.named("remote.copyLogSegmentData",
            "RemoteStorageManager.copyLogSegmentData(RemoteLogSegmentMetadata,LogSegmentData)")
        .in(REMOTE_STORAGE + "ClassLoaderAwareRemoteStorageManager")
        .shape(named("copyLogSegmentData").and(not(isStatic())).and(takesArguments(2))
            .and(takesArgument(0, nameEndsWith(".RemoteLogSegmentMetadata"))))
        .since("3.5", REMOTE_ABSENT)
        .build();

    public static final KafkaTarget REMOTE_DELETE = KafkaTarget.named("remote.deleteLogSegmentData",
            "RemoteStorageManager.deleteLogSegmentData(RemoteLogSegmentMetadata)")
        .in(REMOTE_STORAGE + "ClassLoaderAwareRemoteStorageManager")
        .shape(named("deleteLogSegmentData").and(not(isStatic())).and(takesArguments(1))
            .and(takesArgument(0, nameEndsWith(".RemoteLogSegmentMetadata"))))
        .since("3.5", REMOTE_ABSENT)
        .build();

    /**
     * Where a fetch's handler hands a read from the remote tier to the remote-log-reader pool (a RemoteLogReader made
     * with this fetchInfo, submitted): the start of the read's queue wait. RemoteLogManager in kafka_2.13
     * (kafka.log.remote) up to 4.0, in kafka-storage from 4.1. 3.5 has a RemoteLogManager but no remote read.
     */
    public static final KafkaTarget REMOTE_READ_SUBMIT = KafkaTarget.named("remote.asyncRead",
            "RemoteLogManager.asyncRead(RemoteStorageFetchInfo,Consumer)")
        .in(LOG + "remote.RemoteLogManager", REMOTE_STORAGE + "RemoteLogManager")
        .shape(named("asyncRead").and(not(isStatic())).and(takesArguments(2))
            .and(takesArgument(0, nameEndsWith(".RemoteStorageFetchInfo"))))
        .since("3.6", REMOTE_READ_ABSENT)
        .build();

    /**
     * RemoteLogReader.call(), the remote read on the remote-log-reader pool: the end of its queue wait and the read
     * itself. kafka.log.remote up to 4.0, kafka-storage from 4.1; its bridge call()Object is not matched.
     */
    public static final KafkaTarget REMOTE_READ = KafkaTarget.named("remote.reader.call", "RemoteLogReader.call()")
        .in(LOG + "remote.RemoteLogReader", REMOTE_STORAGE + "RemoteLogReader")
        .shape(named("call").and(not(isStatic())).and(takesNoArguments()).and(returns(Void.class)))
        .since("3.6", REMOTE_READ_ABSENT)
        .verify(KafkaTargets::hasFetchInfo)
        .build();

    /**
     * RemoteIndexCache.createCacheEntry(metadata), private, which the cache runs on a miss only (Caffeine's loader, in a
     * lambda of getIndexEntry): the load of a remote segment's indexes. kafka-storage from 3.6; 3.5's is Scala
     * (kafka.log.remote), with no remote read to use it.
     */
    public static final KafkaTarget REMOTE_INDEX_LOAD = KafkaTarget.named("remote.indexCache.load",
            "RemoteIndexCache.createCacheEntry(RemoteLogSegmentMetadata)")
        .in(STORAGE + "RemoteIndexCache")
        .shape(named("createCacheEntry").and(not(isStatic())).and(takesArguments(1))
            .and(takesArgument(0, nameEndsWith(".RemoteLogSegmentMetadata"))))
        .since("3.6", REMOTE_READ_ABSENT)
        .build();

    /**
     * RemoteIndexCache.getIndexEntry(metadata), public: every lookup of the cache (lookupOffset, lookupTimestamp, and
     * RemoteLogManager's aborted transactions of a read_committed remote read, in every version), which runs Caffeine's
     * cache.get(id, loader) on the calling thread: a lookup with no {@link #REMOTE_INDEX_LOAD} begun inside it on its
     * thread is a hit. kafka-storage from 3.6, one shape to 4.4 (javap); only where that load is, which tells a miss.
     */
    public static final KafkaTarget REMOTE_INDEX_LOOKUP = KafkaTarget.named("remote.indexCache.get",
            "RemoteIndexCache.getIndexEntry(RemoteLogSegmentMetadata)")
        .in(STORAGE + "RemoteIndexCache")
        .shape(named("getIndexEntry").and(not(isStatic())).and(takesArguments(1))
            .and(takesArgument(0, nameEndsWith(".RemoteLogSegmentMetadata"))))
        .since("3.6", REMOTE_READ_ABSENT)
        .verify(KafkaTargets::hasIndexLoad)
        .build();

    /**
     * DelayedRemoteFetch.onExpiration(): a fetch that waited for a remote read gives up at remote.fetch.max.wait.ms (on
     * the purgatory's timer thread, after the response is sent) and cancels the read's Future; a read still queued for
     * the reader pool then never runs (FutureTask.run returns without calling RemoteLogReader.call), so its queue wait
     * ends here. kafka.server (Scala, kafka_2.13) with one read, fields remoteFetchTask and remoteFetchInfo, in 3.6-4.1
     * (cancel(true) up to 3.8, cancel(false) from 3.9.2 by the jars); org.apache.kafka.server.purgatory (Java,
     * kafka-storage) from 4.2 with a read per partition, maps remoteFetchTasks and remoteFetchInfos, each read's
     * Future cancelled unless done.
     */
    public static final KafkaTarget REMOTE_FETCH_EXPIRY = KafkaTarget.named("remote.delayedFetch.expire",
            "DelayedRemoteFetch.onExpiration()")
        .in(SERVER + "DelayedRemoteFetch", "org.apache.kafka.server.purgatory.DelayedRemoteFetch")
        .shape(named("onExpiration").and(not(isStatic())).and(takesNoArguments()).and(returns(void.class)))
        .since("3.6", REMOTE_READ_ABSENT)
        .verify(KafkaTargets::hasRemoteFetchTasks)
        .build();

    /** The JDK's public transferTo is stable; what is under it differs on JDK 17, 21 and 25. */
    public static final KafkaTarget FILE_CHANNEL_TRANSFER_TO = KafkaTarget.named("jdk.transferTo",
            "FileChannelImpl.transferTo(long,long,WritableByteChannel)")
        .in("sun.nio.ch.FileChannelImpl")
        .shape(named("transferTo").and(takesArguments(long.class, long.class, WritableByteChannel.class))
            .and(returns(long.class)))
        .inJdk(KafkaTargets::hasPathField)
        .build();

    /**
     * The private append(MemoryRecords, ...) that appendAsLeader and appendAsFollower call and that takes the log's
     * lock: Log in 2.8, UnifiedLog in 3.x and 4.0, the Java UnifiedLog from 4.1 (its arguments differ per version,
     * the first and the result do not). kafka-storage 4.0's static-helper UnifiedLog: instance methods only.
     */
    public static final KafkaTarget LOG_APPEND = KafkaTarget.named("log.append", "UnifiedLog.append(MemoryRecords,...)")
        .in(LOG + "Log", LOG + "UnifiedLog", STORAGE + "UnifiedLog")
        .shape(named("append").and(isPrivate()).and(not(isStatic()))
            .and(takesArgument(0, nameEndsWith(".MemoryRecords"))).and(returns(nameEndsWith(".LogAppendInfo"))))
        .build();

    /**
     * Log.roll(Option) in 2.8, UnifiedLog.roll(Option) in 3.x and 4.0, UnifiedLog.roll(Optional) and roll()
     * in 4.1+ (one calls the other). kafka-storage 4.0 also has a static-helper UnifiedLog: instance methods only.
     */
    public static final KafkaTarget LOG_ROLL = KafkaTarget.named("log.roll", "UnifiedLog.roll")
        .in(LOG + "Log", LOG + "UnifiedLog", STORAGE + "UnifiedLog")
        .shape(named("roll").and(not(isStatic())).and(takesArguments(0).or(takesArguments(1)))
            .and(returns(nameEndsWith(".LogSegment"))))
        .build();

    /** takeSnapshot() up to 3.6; 3.7 adds takeSnapshot(boolean), which takeSnapshot() calls. */
    public static final KafkaTarget SNAPSHOT_TAKE = KafkaTarget.named("snapshot.take", "ProducerStateManager.takeSnapshot")
        .in(LOG + "ProducerStateManager", STORAGE + "ProducerStateManager")
        .shape(named("takeSnapshot").and(not(isStatic())))
        .build();

    /**
     * The Scala companion's name-mangled writeSnapshot(File, Map) up to 3.4, a static writeSnapshot(File, Map)
     * in 3.5/3.6, writeSnapshot(File, Map, boolean sync) from 3.7.
     */
    public static final KafkaTarget SNAPSHOT_WRITE = KafkaTarget.named("snapshot.write",
            "ProducerStateManager.writeSnapshot(File,...)")
        .in(LOG + "ProducerStateManager$", STORAGE + "ProducerStateManager")
        .shape(nameEndsWith("writeSnapshot").and(takesArgument(0, File.class)))
        .build();

    /** KAFKA-15046 (3.7) moved the snapshot fsync out of the roll into the scheduler's flush-log job. */
    public static final KafkaTarget SNAPSHOT_FLUSH = KafkaTarget.named("snapshot.flush",
            "UnifiedLog.flushProducerStateSnapshot(Path)")
        .in(LOG + "UnifiedLog", STORAGE + "UnifiedLog")
        .shape(named("flushProducerStateSnapshot").and(takesArguments(Path.class)))
        .since("3.7", "there the snapshot fsync is part of snapshot_write, on the roll")
        .build();

    public static final KafkaTarget SEGMENT_INACTIVE = KafkaTarget.named("segment.inactive",
            "LogSegment.onBecomeInactiveSegment()")
        .in(LOG + "LogSegment", STORAGE + "LogSegment")
        .shape(named("onBecomeInactiveSegment").and(takesNoArguments()))
        .build();

    /**
     * Only the full overload, (long, int, long|Optional, boolean): 3.7 adds (long, int) and (long, int, long),
     * which delegate to it; hooking them too would count a read twice.
     */
    public static final KafkaTarget SEGMENT_READ = KafkaTarget.named("segment.read", "LogSegment.read(long,int,...,boolean)")
        .in(LOG + "LogSegment", STORAGE + "LogSegment")
        .shape(named("read").and(takesArguments(4)).and(takesArgument(0, long.class))
            .and(takesArgument(1, int.class)).and(takesArgument(3, boolean.class)))
        .build();

    /** With TLS the network thread reads the segment into a buffer instead of sendfile. */
    public static final KafkaTarget TLS_TRANSFER_FROM = KafkaTarget.named("tls.transferFrom",
            "SslTransportLayer.transferFrom(FileChannel,long,long)")
        .in(NETWORK + "SslTransportLayer")
        .shape(named("transferFrom").and(takesArguments(FileChannel.class, long.class, long.class))
            .and(returns(long.class)))
        .build();

    // ---- mitigations ----

    /**
     * prefetch: the step of a fetch that has read every partition (each under its own partition lock, now
     * released) and whose results the response is built from: readFromLocalLog up to 3.4, readFromLog from
     * 3.5 (3.3+ with a last readFromPurgatory flag, read in javap of 3.0.2, 3.1.2, 3.2.3 and 3.3.2). Consumer and follower fetches go through it, the KRaft
     * raft I/O thread does not (KafkaMetadataLog reads UnifiedLog directly). 2.8 also has a private local
     * readFromLog$1, which the names exclude. The
     * return type (a scala Seq) is not part of the shape: scala-library is not among the jars the catalog test reads.
     */
    public static final KafkaTarget FETCH_READ = KafkaTarget.named("prefetch.fetch.read",
            "ReplicaManager.readFromLocalLog/readFromLog")
        .in(SERVER + "ReplicaManager")
        .shape(named("readFromLog").or(named("readFromLocalLog")).and(not(isStatic())))
        .build();

    /**
     * prefetch: the completion of a fetch that waited in the purgatory, which re-reads the log through
     * {@link #FETCH_READ} on whichever thread completes it (the purgatory's timer thread on expiry, a produce's
     * handler, a leader change or StopReplica under replicaStateChangeLock). Marks that thread so that no
     * warm-up runs there: 2.8 to 3.2 pass no readFromPurgatory flag (their read ends with an Option), 3.3+ do.
     * kafka.server.DelayedFetch in every version (Scala; its base class moved to Java in 4.0).
     */
    public static final KafkaTarget FETCH_PURGATORY_COMPLETE = KafkaTarget.named("prefetch.delayed.fetch.complete",
            "DelayedFetch.onComplete()")
        .in(SERVER + "DelayedFetch")
        .shape(named("onComplete").and(not(isStatic())).and(takesNoArguments()).and(returns(void.class)))
        .build();

    /** roll-flush: the snapshot write whose fsync it defers; from 3.7 it takes a sync flag and Kafka defers it itself. */
    public static final KafkaTarget ROLL_SNAPSHOT_WRITE = KafkaTarget.named("roll-flush.snapshot.write",
            "ProducerStateManager.writeSnapshot(File,Map)")
        .in(LOG + "ProducerStateManager$", STORAGE + "ProducerStateManager")
        .shape(nameEndsWith("writeSnapshot").and(takesArguments(2)).and(takesArgument(0, File.class)))
        .until("3.7", "it takes a sync flag, and Kafka itself fsyncs the snapshot off the roll (KAFKA-15046)")
        .build();

    /** roll-flush: the roll that marks its thread; Scala until 4.0, then Java with an Optional. */
    public static final KafkaTarget ROLL_WITH_OPTION = KafkaTarget.named("roll-flush.roll", "Log/UnifiedLog.roll(Option)")
        .in(LOG + "Log", LOG + "UnifiedLog")
        .shape(named("roll").and(not(isStatic())).and(takesArguments(1)).and(returns(nameEndsWith(".LogSegment"))))
        .until("4.1", "UnifiedLog moved to kafka-storage; roll-flush is not needed from 3.7")
        .build();

    /**
     * roll-flush, 2.8-3.1: the log's flush up to an offset (exclusive), where deferred snapshots are made durable
     * first: Log.flush(long) up to 3.0 (Log became UnifiedLog in 3.1), UnifiedLog.flush(long) in 3.1.
     */
    public static final KafkaTarget LOG_FLUSH = KafkaTarget.named("roll-flush.log.flush", "Log/UnifiedLog.flush(long)")
        .in(LOG + "Log", LOG + "UnifiedLog")
        .shape(named("flush").and(not(isStatic())).and(takesArguments(long.class)))
        .until("3.2", "from 3.2 it is UnifiedLog.flush(long, boolean)")
        .build();

    /** roll-flush, 3.2 on: the same flush with its includingOffset flag (in kafka-storage, private, from 4.1). */
    public static final KafkaTarget UNIFIED_LOG_FLUSH = KafkaTarget.named("roll-flush.unifiedlog.flush",
            "UnifiedLog.flush(long,boolean)")
        .in(LOG + "UnifiedLog", STORAGE + "UnifiedLog")
        .shape(named("flush").and(not(isStatic())).and(takesArguments(long.class, boolean.class)))
        .since("3.2", "before 3.2 the flush is Log/UnifiedLog.flush(long)")
        .build();

    /** roll-flush, 3.1 on: LocalLog.markFlushed, which moves the recovery point under the partition lock. */
    public static final KafkaTarget LOCAL_LOG_MARK_FLUSHED = KafkaTarget.named("roll-flush.locallog.markFlushed",
            "LocalLog.markFlushed(long)")
        .in(LOG + "LocalLog")
        .shape(named("markFlushed").and(not(isStatic())).and(takesArguments(long.class)))
        .between("3.1", "4.0", "no LocalLog before 3.1; it moved to kafka-storage in 4.0")
        .build();

    /**
     * roll-flush: Kafka's own path for a failed log dir, taken when the final fsync at detach fails (no Kafka
     * flush is there to fail): maybeAddOfflineLogDir(String logDir, msg, IOException), the msg a Scala by-name
     * Function0 in kafka.server up to 3.4, a String in kafka-storage from 3.5.
     */
    public static final KafkaTarget LOG_DIR_FAILURE = KafkaTarget.named("roll-flush.logdir.failure",
            "LogDirFailureChannel.maybeAddOfflineLogDir(String,msg,IOException)")
        .in(SERVER + "LogDirFailureChannel", STORAGE + "LogDirFailureChannel")
        .shape(named("maybeAddOfflineLogDir").and(not(isStatic())).and(takesArguments(3))
            .and(takesArgument(0, String.class)).and(takesArgument(2, java.io.IOException.class)))
        .build();

    // ---- power-cut holes (holes): always on, read-only ----

    /**
     * The end of one segment's recovery, where the recovered segment's next offset can be set against the next
     * segment's base: Log.recoverSegment(LogSegment, Option) in 2.8, the Scala companion LogLoader$.recoverSegment(
     * LogSegment, LoadLogParams) in 3.0-3.2, LogLoader.recoverSegment(LogSegment) in 3.3-3.9 (kafka.log) and from 4.0
     * (kafka-storage). Each returns the bytes it truncated; the log's config and log start offset are on the instance
     * (2.8, 3.3+) or in the LoadLogParams (3.0-3.2). 2.8's recoverSegment$default$2() takes no segment.
     */
    public static final KafkaTarget SEGMENT_RECOVERED = KafkaTarget.named("holes.segment.recovered",
            "LogLoader.recoverSegment(LogSegment,...)")
        .in(LOG + "Log", LOG + "LogLoader$", LOG + "LogLoader", STORAGE + "LogLoader")
        .shape(named("recoverSegment").and(not(isStatic())).and(takesArgument(0, nameEndsWith(".LogSegment")))
            .and(returns(int.class)))
        .build();

    /**
     * mitigate=hole-repair: the loop over the segments past the recovery point after an unclean stop, the only caller
     * of recoverSegment that acts on its return value (a positive one deletes every later segment). The load path also
     * calls recoverSegment (a missing index, swap files) and ignores the value, so the repair is armed only inside
     * this method: Log.recoverLog()J in 2.8, LogLoader$.recoverLog(LoadLogParams) in 3.0-3.1, LogLoader.recoverLog()
     * in 3.2-3.9 (kafka.log) and from 4.0 (kafka-storage). Its Scala lambdas are static and not matched.
     */
    public static final KafkaTarget RECOVER_LOG = KafkaTarget.named("holes.recover.log", "LogLoader.recoverLog()")
        .in(LOG + "Log", LOG + "LogLoader$", LOG + "LogLoader", STORAGE + "LogLoader")
        .shape(named("recoverLog").and(not(isStatic())))
        .build();

    // ---- stop/start breakdown (stopstart): where a broker's stop and start go ----

    /** The log manager's stop; 4.4 (Java) adds shutdown(), which calls shutdown(long): counted once. */
    public static final KafkaTarget LOG_MANAGER_SHUTDOWN = KafkaTarget.named("stopstart.logmanager.shutdown",
            "LogManager.shutdown")
        .in(LOG + "LogManager", STORAGE + "LogManager")
        .shape(named("shutdown").and(not(isStatic())).and(takesNoArguments().or(takesArguments(long.class))))
        .build();

    /** The per-dir checkpoints the stop writes (recovery points, log start offsets), each taking the dir first. */
    public static final KafkaTarget LOG_MANAGER_CHECKPOINT = KafkaTarget.named("stopstart.logmanager.checkpoint",
            "LogManager.checkpoint*InDir(File,Map)")
        .in(LOG + "LogManager", STORAGE + "LogManager")
        .shape(named("checkpointRecoveryOffsetsInDir").or(named("checkpointLogStartOffsetsInDir"))
            .and(takesArguments(2)).and(takesArgument(0, File.class)))
        .build();

    /** The start's loading of every log dir; Scala up to 4.3, Java from 4.4. */
    public static final KafkaTarget LOG_MANAGER_LOAD_LOGS = KafkaTarget.named("stopstart.logmanager.loadLogs",
            "LogManager.loadLogs")
        .in(LOG + "LogManager", STORAGE + "LogManager")
        .shape(named("loadLogs").and(not(isStatic())))
        .build();

    /** One log's load (and recovery after an unclean stop): (File dir, boolean hadCleanShutdown, ...) in every version. */
    public static final KafkaTarget LOG_MANAGER_LOAD_LOG = KafkaTarget.named("stopstart.logmanager.loadLog",
            "LogManager.loadLog(File,boolean,...)")
        .in(LOG + "LogManager", STORAGE + "LogManager")
        .shape(named("loadLog").and(takesArgument(0, File.class)).and(takesArgument(1, boolean.class)))
        .build();

    /** The stop's flush of one log: flush() in 2.8 (it calls flush(long)), flush(boolean) from 3.0. */
    public static final KafkaTarget LOG_FLUSH_AT_STOP = KafkaTarget.named("stopstart.log.flush", "UnifiedLog.flush()")
        .in(LOG + "Log", LOG + "UnifiedLog", STORAGE + "UnifiedLog")
        .shape(named("flush").and(not(isStatic())).and(takesNoArguments().or(takesArguments(boolean.class))))
        .build();

    /** The close of one log, which closes its segments. */
    public static final KafkaTarget LOG_CLOSE = KafkaTarget.named("stopstart.log.close", "UnifiedLog.close()")
        .in(LOG + "Log", LOG + "UnifiedLog", STORAGE + "UnifiedLog")
        .shape(named("close").and(not(isStatic())).and(takesNoArguments()).and(returns(void.class)))
        .build();

    public static final KafkaTarget SEGMENT_CLOSE = KafkaTarget.named("stopstart.segment.close", "LogSegment.close()")
        .in(LOG + "LogSegment", STORAGE + "LogSegment")
        .shape(named("close").and(takesNoArguments()).and(returns(void.class)))
        .build();

    /** KAFKA-5297: closing an index truncates its file to the entries it holds. */
    public static final KafkaTarget INDEX_TRIM = KafkaTarget.named("stopstart.index.trim",
            "AbstractIndex.trimToValidSize()")
        .in(LOG + "AbstractIndex", STORAGE + "AbstractIndex")
        .shape(named("trimToValidSize").and(takesNoArguments()))
        .build();

    /** KAFKA-5297: the segment's close appends its max timestamp, reading the time index's last entry (cold pages). */
    public static final KafkaTarget TIME_INDEX_LAST_ENTRY = KafkaTarget.named("stopstart.timeindex.lastEntry",
            "TimeIndex.lastEntry()")
        .in(LOG + "TimeIndex", STORAGE + "TimeIndex")
        .shape(named("lastEntry").and(takesNoArguments()))
        .build();

    /** Closing a segment's records truncates the preallocated file to its size. */
    public static final KafkaTarget RECORDS_TRIM = KafkaTarget.named("stopstart.records.trim", "FileRecords.trim()")
        .in(RECORD + "FileRecords", RECORD + "internal.FileRecords")
        .shape(named("trim").and(takesNoArguments()).and(returns(void.class)))
        .build();

    /** A segment recovered at start (after an unclean stop, or past the recovery point). */
    public static final KafkaTarget SEGMENT_RECOVER = KafkaTarget.named("stopstart.segment.recover",
            "LogSegment.recover(ProducerStateManager,...)")
        .in(LOG + "LogSegment", STORAGE + "LogSegment")
        .shape(named("recover").and(takesArguments(2)).and(takesArgument(0, nameEndsWith(".ProducerStateManager")))
            .and(returns(int.class)))
        .build();

    /**
     * The broker's whole stop, the method kafka.Kafka's shutdown hook calls: KafkaServer (ZooKeeper, up to 3.9) or
     * KafkaRaftServer (KRaft: broker, controller, raft). Its end is the stop's end short of the JVM's exit.
     */
    public static final KafkaTarget SERVER_SHUTDOWN = KafkaTarget.named("stopstart.server.shutdown",
            "KafkaServer/KafkaRaftServer.shutdown()")
        .in(SERVER + "KafkaServer", SERVER + "KafkaRaftServer")
        .shape(named("shutdown").and(not(isStatic())).and(takesNoArguments()).and(returns(void.class)))
        .build();

    private KafkaTargets() {
    }

    /** Every entry, points first, in the order the start-up line and the catalog test list them. */
    public static List<KafkaTarget> all() {
        return Collections.unmodifiableList(Arrays.asList(
            SEGMENT_FLUSH, RECORDS_APPEND, INDEX_RESIZE, FILE_CHANNEL_TRANSFER_TO, LOG_ROLL, SNAPSHOT_TAKE,
            SNAPSHOT_WRITE, SNAPSHOT_FLUSH, SEGMENT_INACTIVE, SEGMENT_READ, TLS_TRANSFER_FROM, LOG_APPEND, INDEX_LOOKUP,
            INDEX_REMAP_READ_LOCK, REMOTE_FETCH_SEGMENT, REMOTE_FETCH_INDEX, REMOTE_COPY, REMOTE_DELETE, REMOTE_READ_SUBMIT,
            REMOTE_READ, REMOTE_INDEX_LOAD, REMOTE_INDEX_LOOKUP, REMOTE_FETCH_EXPIRY,
            FETCH_READ, FETCH_PURGATORY_COMPLETE, ROLL_SNAPSHOT_WRITE, ROLL_WITH_OPTION, LOG_FLUSH, UNIFIED_LOG_FLUSH,
            LOCAL_LOG_MARK_FLUSHED, LOG_DIR_FAILURE, SEGMENT_RECOVERED, RECOVER_LOG));
    }

    /** The stop/start breakdown's entries, in the order its catalog test lists them. */
    public static List<KafkaTarget> stopStart() {
        return Collections.unmodifiableList(Arrays.asList(
            LOG_MANAGER_SHUTDOWN, LOG_MANAGER_CHECKPOINT, LOG_MANAGER_LOAD_LOGS, LOG_MANAGER_LOAD_LOG, LOG_FLUSH_AT_STOP,
            LOG_CLOSE, SEGMENT_CLOSE, INDEX_TRIM, TIME_INDEX_LAST_ENTRY, RECORDS_TRIM, SEGMENT_RECOVER, SERVER_SHUTDOWN));
    }

    /** The remap-wait advice reads AbstractIndex's remapLock field. */
    private static String hasRemapLock(TypeDescription type) {
        return declaresField(type, "remapLock", java.util.concurrent.locks.ReentrantReadWriteLock.class) ? null
            : type.getName() + " has no ReentrantReadWriteLock field 'remapLock'";
    }

    /** The remote-read advice reads RemoteLogReader's fetchInfo field, the object asyncRead was handed. */
    private static String hasFetchInfo(TypeDescription type) {
        for (FieldDescription.InDefinedShape field : type.getDeclaredFields()) {
            if (field.getName().equals("fetchInfo") && field.getType().asErasure().getName().endsWith(".RemoteStorageFetchInfo")) {
                return null;
            }
        }
        return type.getName() + " has no RemoteStorageFetchInfo field 'fetchInfo'";
    }

    /**
     * The expiry advice reads each remote read's Future and fetchInfo: one of each (3.6-4.1) or a map of each by
     * partition (4.2+).
     */
    private static String hasRemoteFetchTasks(TypeDescription type) {
        boolean one = declaresField(type, KafkaMembers.DELAYED_REMOTE_FETCH_TASK, java.util.concurrent.Future.class)
            && declaresFieldNamed(type, KafkaMembers.DELAYED_REMOTE_FETCH_INFO, ".RemoteStorageFetchInfo");
        boolean perPartition = declaresField(type, KafkaMembers.DELAYED_REMOTE_FETCH_TASKS, java.util.Map.class)
            && declaresField(type, KafkaMembers.DELAYED_REMOTE_FETCH_INFOS, java.util.Map.class);
        return one || perPartition ? null : type.getName() + " has neither a Future 'remoteFetchTask' and a "
            + "RemoteStorageFetchInfo 'remoteFetchInfo' nor the maps 'remoteFetchTasks' and 'remoteFetchInfos'";
    }

    /** The lookup counter tells a miss by the load inside it: without that method it would call every lookup a hit. */
    private static String hasIndexLoad(TypeDescription type) {
        return type.getDeclaredMethods().filter(REMOTE_INDEX_LOAD.shape()).isEmpty()
            ? type.getName() + " has no " + REMOTE_INDEX_LOAD.describe() + " to tell a miss by" : null;
    }

    /** The transferTo advice reads FileChannelImpl's path field. */
    private static String hasPathField(TypeDescription type) {
        return declaresField(type, "path", String.class) ? null : "FileChannelImpl has no String field 'path' on this JDK";
    }

    private static boolean declaresFieldNamed(TypeDescription type, String name, String typeNameSuffix) {
        for (FieldDescription.InDefinedShape field : type.getDeclaredFields()) {
            if (field.getName().equals(name) && field.getType().asErasure().getName().endsWith(typeNameSuffix)) {
                return true;
            }
        }
        return false;
    }

    private static boolean declaresField(TypeDescription type, String name, Class<?> fieldType) {
        for (FieldDescription.InDefinedShape field : type.getDeclaredFields()) {
            if (field.getName().equals(name) && field.getType().asErasure().represents(fieldType)) {
                return true;
            }
        }
        return false;
    }
}
