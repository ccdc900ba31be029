package io.stallscope.analyzer.analysis;

import java.util.List;
import java.util.Map;

/**
 * A pattern operators hunt, with the evidence for it. {@code weightNanos} ranks findings: the stall time it
 * explains. {@code details}: named facts automation asserts on (in the JSON as fields of the finding), empty for
 * the kinds that have none. {@code atNanos}: the moment in the recording (epoch ns) that shows it, or
 * {@link #NO_MOMENT}.
 */
public record Finding(String kind, String summary, List<String> threads, List<String> evidence, long weightNanos,
                      Map<String, Object> details, long atNanos) {
    /** {@code atNanos} when a finding has no one moment to show. */
    public static final long NO_MOMENT = -1;

    public Finding(String kind, String summary, List<String> threads, List<String> evidence, long weightNanos) {
        this(kind, summary, threads, evidence, weightNanos, Map.of(), NO_MOMENT);
    }

    public Finding(String kind, String summary, List<String> threads, List<String> evidence, long weightNanos,
                   Map<String, Object> details) {
        this(kind, summary, threads, evidence, weightNanos, details, NO_MOMENT);
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
        return new Finding(kind, summary, threads, evidence, weightNanos, details, epochNanos);
    }

    public static final String STALLED_OP_UNDER_LOCK = "stalled-op-under-lock";
    public static final String SLOW_OP = "slow-op";
    public static final String HOLDER_IN_FILE_IO = "holder-blocked-in-file-io";
    public static final String NETWORK_THREAD_IO = "network-thread-blocked-in-file-io";
    public static final String FSYNC_ON_PRODUCE = "fsync-on-produce-path";
    public static final String INDEX_UNMAP_STORM = "index-resize-unmap-storm";
    public static final String CONTENDED_LOCKS = "contended-locks";
    public static final String WRITE_BEHIND_SENDFILE = "write-behind-sendfile";
}
