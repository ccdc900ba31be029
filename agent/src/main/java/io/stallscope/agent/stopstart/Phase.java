package io.stallscope.agent.stopstart;

import io.stallscope.agent.kafka.KafkaTarget;
import io.stallscope.agent.kafka.KafkaTargets;

/** The parts of a stop and a start the breakdown times, each on one catalog entry. */
public enum Phase {
    /** LogManager.shutdown: the stop's log part, from its entry to its end. */
    STOP(KafkaTargets.LOG_MANAGER_SHUTDOWN, "log manager"),
    CHECKPOINT(KafkaTargets.LOG_MANAGER_CHECKPOINT, "checkpoints"),
    LOAD_LOGS(KafkaTargets.LOG_MANAGER_LOAD_LOGS, "loading logs"),
    LOAD_LOG(KafkaTargets.LOG_MANAGER_LOAD_LOG, "loading"),
    FLUSH(KafkaTargets.LOG_FLUSH_AT_STOP, "flushing logs"),
    LOG_CLOSE(KafkaTargets.LOG_CLOSE, "closing logs"),
    SEGMENT_CLOSE(KafkaTargets.SEGMENT_CLOSE, "closing segments"),
    INDEX_TRIM(KafkaTargets.INDEX_TRIM, "index trim"),
    TIME_INDEX_LAST_ENTRY(KafkaTargets.TIME_INDEX_LAST_ENTRY, "time-index last entry"),
    RECORDS_TRIM(KafkaTargets.RECORDS_TRIM, "file truncation"),
    SEGMENT_RECOVER(KafkaTargets.SEGMENT_RECOVER, "recovering segments"),
    /** KafkaServer/KafkaRaftServer.shutdown: the whole stop, whose end is reported after the log manager's. */
    SERVER_STOP(KafkaTargets.SERVER_SHUTDOWN, "broker's shutdown"),
    /** A segment flushed by a log's flush at the stop: counted with its size (the timing point's entry). */
    SEGMENT_FLUSH(KafkaTargets.SEGMENT_FLUSH, "segments flushed");

    static final Phase[] ALL = values();

    private final KafkaTarget target;
    private final String label;

    Phase(KafkaTarget target, String label) {
        this.target = target;
        this.label = label;
    }

    public KafkaTarget target() {
        return target;
    }

    String label() {
        return label;
    }
}
