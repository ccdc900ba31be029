package io.stallscope.analyzer.analysis;

import java.util.List;
import java.util.Map;

/**
 * A pattern operators hunt, with the evidence for it. {@code weightNanos} ranks findings: the stall time it
 * explains. {@code details}: named facts automation asserts on (in the JSON as fields of the finding), empty for
 * the kinds that have none.
 */
public record Finding(String kind, String summary, List<String> threads, List<String> evidence, long weightNanos,
                      Map<String, Object> details) {
    public Finding(String kind, String summary, List<String> threads, List<String> evidence, long weightNanos) {
        this(kind, summary, threads, evidence, weightNanos, Map.of());
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
