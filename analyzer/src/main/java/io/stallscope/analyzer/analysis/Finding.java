package io.stallscope.analyzer.analysis;

import io.stallscope.analyzer.analysis.findings.Harm;

import java.util.List;
import java.util.Map;

/**
 * A pattern operators hunt, with the evidence for it. {@code weightNanos} ranks findings: the stall time it
 * explains. {@code details}: named facts automation asserts on (in the JSON as fields of the finding), empty for
 * the kinds that have none. {@code atNanos}: the moment in the recording (epoch ns) that shows it, or
 * {@link #NO_MOMENT}. {@code harm}: what it cost the clients (request-path threads stalled), which ranks the
 * findings that hurt one above every other.
 */
public record Finding(String kind, String summary, List<String> threads, List<String> evidence, long weightNanos,
                      Map<String, Object> details, long atNanos, Harm harm) {
    /** {@code atNanos} when a finding has no one moment to show. */
    public static final long NO_MOMENT = -1;

    public Finding(String kind, String summary, List<String> threads, List<String> evidence, long weightNanos) {
        this(kind, summary, threads, evidence, weightNanos, Map.of(), NO_MOMENT, Harm.NONE);
    }

    public Finding(String kind, String summary, List<String> threads, List<String> evidence, long weightNanos,
                   Map<String, Object> details) {
        this(kind, summary, threads, evidence, weightNanos, details, NO_MOMENT, Harm.NONE);
    }

    public Finding(String kind, String summary, List<String> threads, List<String> evidence, long weightNanos,
                   Map<String, Object> details, long atNanos) {
        this(kind, summary, threads, evidence, weightNanos, details, atNanos, Harm.NONE);
    }

    /** The same finding with what it cost the clients. */
    public Finding with(Harm h) {
        return new Finding(kind, summary, threads, evidence, weightNanos, details, atNanos, h);
    }

    /** The same finding with other evidence. */
    public Finding with(List<String> otherEvidence) {
        return new Finding(kind, summary, threads, otherEvidence, weightNanos, details, atNanos, harm);
    }

    /**
     * What ranks findings: the stall time explained, times the threads it involves (the waiters and the holder).
     * A 0.1 ms op under a lock never outranks a lock that 8 threads waited 736 ms for.
     */
    public double impact() {
        return (double) weightNanos * Math.max(1, threads.size());
    }

    /** The same finding, pointing at the moment (epoch ns) that shows it best: the op, the longest wait, the first stall. */
    public Finding at(long epochNanos) {
        return new Finding(kind, summary, threads, evidence, weightNanos, details, epochNanos, harm);
    }

    public static final String STALLED_OP_UNDER_LOCK = "stalled-op-under-lock";
    public static final String SLOW_OP = "slow-op";
    public static final String HOLDER_IN_FILE_IO = "holder-blocked-in-file-io";
    public static final String NETWORK_THREAD_IO = "network-thread-blocked-in-file-io";
    /** fsync on a request handler: a produce request waits for the disk. */
    public static final String FSYNC_ON_PRODUCE = "fsync-on-produce-path";
    /** A segment roll's fsync on a thread no client waits on directly (a scheduler flushing the rolled segment). */
    public static final String ROLL_FSYNC_OFF_REQUEST_PATH = "roll-fsync-off-request-path";
    public static final String INDEX_UNMAP_STORM = "index-resize-unmap-storm";
    public static final String CONTENDED_LOCKS = "contended-locks";
    public static final String WRITE_BEHIND_SENDFILE = "write-behind-sendfile";
    /** Remote reads queued in the remote-log-reader pool while other remote reads held every pool thread. */
    public static final String REMOTE_READER_POOL_SATURATED = "remote-reader-pool-saturated";
    /** A request handler in the tiered-storage plugin's calls (a ListOffsets by timestamp before Kafka 4.0). */
    public static final String HANDLER_BLOCKED_ON_REMOTE_STORAGE = "request-handler-blocked-on-remote-storage";
    /** Background work (scheduler flushes, the log cleaner) no request-path thread waited on, folded into one. */
    public static final String BACKGROUND_IO = "background-io";
}
