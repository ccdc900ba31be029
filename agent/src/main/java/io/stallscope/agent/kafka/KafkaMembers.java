package io.stallscope.agent.kafka;

/**
 * The names of the Kafka members the agent reads by reflection on objects it is handed (an op's subject, a
 * fetch's result), beside the methods it hooks ({@link KafkaTargets}): kept here so that what the agent knows
 * of Kafka stays in this package.
 */
public final class KafkaMembers {
    /** LogSegment.size(): the segment's bytes (int or long, by version). */
    public static final String SEGMENT_SIZE = "size";
    /** Log, UnifiedLog and LocalLog .dir(): the partition's directory. */
    public static final String LOG_DIR = "dir";
    /**
     * Log and UnifiedLog's private monitor (2.8-3.6): renameDir holds it from the move of the directory to the
     * update of dir(), so dir() read under it is where the log's files are.
     */
    public static final String LOG_LOCK = "lock";
    /** The log's LogDirFailureChannel: a private field of Log (2.8, 3.0), a public method of UnifiedLog (3.1+). */
    public static final String LOG_DIR_FAILURE_CHANNEL = "logDirFailureChannel";
    /** FetchDataInfo.records: a public field from 3.6, a method records() before. */
    public static final String FETCH_RECORDS = "records";
    /** FileRecords.channel(), file(), sizeInBytes() and its private field start: the slice a fetch sends. */
    public static final String FILE_RECORDS_CHANNEL = "channel";
    public static final String FILE_RECORDS_FILE = "file";
    public static final String FILE_RECORDS_SIZE = "sizeInBytes";
    public static final String FILE_RECORDS_START = "start";

    /**
     * Tiered storage: RemoteLogSegmentMetadata (kafka-storage-api, 3.5+), the subject of the plugin's calls, by class
     * name (the agent never loads Kafka's classes itself); its remoteLogSegmentId() (id(), a Uuid), topicIdPartition()
     * (topic(), partition()) and startOffset(), all public in every version that has it.
     */
    public static final String REMOTE_SEGMENT_METADATA = "org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata";
    public static final String REMOTE_SEGMENT_ID = "remoteLogSegmentId";
    public static final String REMOTE_SEGMENT_ID_ID = "id";
    public static final String REMOTE_TOPIC_ID_PARTITION = "topicIdPartition";
    public static final String REMOTE_TOPIC = "topic";
    public static final String REMOTE_PARTITION = "partition";
    public static final String REMOTE_START_OFFSET = "startOffset";
    /**
     * RemoteStorageFetchInfo (kafka-storage, 3.6+), a remote read's subject: its public field topicPartition up to 4.1,
     * a record with topicIdPartition() from 4.2; either has topic() and partition().
     */
    public static final String REMOTE_FETCH_INFO = "org.apache.kafka.storage.internals.log.RemoteStorageFetchInfo";
    public static final String REMOTE_FETCH_INFO_PARTITION = "topicPartition";

    /**
     * DelayedRemoteFetch (3.6+), a fetch waiting in the purgatory for its remote reads, read as it expires: each read's
     * Future and the fetchInfo asyncRead was handed, as the private fields remoteFetchTask and remoteFetchInfo (one
     * read; kafka.server, Scala, 3.6-4.1) or the maps by partition remoteFetchTasks and remoteFetchInfos
     * (org.apache.kafka.server.purgatory, Java, 4.2+).
     */
    public static final String DELAYED_REMOTE_FETCH_TASK = "remoteFetchTask";
    public static final String DELAYED_REMOTE_FETCH_INFO = "remoteFetchInfo";
    public static final String DELAYED_REMOTE_FETCH_TASKS = "remoteFetchTasks";
    public static final String DELAYED_REMOTE_FETCH_INFOS = "remoteFetchInfos";

    /**
     * How an op's subject leads to its file, tried in this order on each class: FileRecords.file(),
     * AbstractIndex.file(), the JDK's FileChannelImpl.path, UnifiedLog.dir(), ProducerStateManager.logDir() (and
     * _logDir in Scala), LogSegment.log().
     */
    private static final String[] PATH_ACCESSORS = {"file", "path", "dir", "logDir", "log", "_logDir"};

    private KafkaMembers() {
    }

    public static String[] pathAccessors() {
        return PATH_ACCESSORS.clone();
    }
}
