package io.stallscope.agent.holes;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;

/**
 * What a log dir's own checkpoint files say of its logs, for the hole rule: which were cleaned (so compacted) and
 * where each starts. The live check asks the log's config first; check-logs has only these files.
 */
final class LogDirFacts {
    private final Map<String, Long> logStarts;
    private final Map<String, Long> cleaned;

    private LogDirFacts(Map<String, Long> logStarts, Map<String, Long> cleaned) {
        this.logStarts = logStarts;
        this.cleaned = cleaned;
    }

    /** root: the log dir (the partition directories' parent); null reads as no checkpoint at all. */
    static LogDirFacts read(Path root) throws IOException {
        if (root == null) {
            return new LogDirFacts(Collections.emptyMap(), Collections.emptyMap());
        }
        return new LogDirFacts(OffsetCheckpoint.read(root.resolve(OffsetCheckpoint.LOG_START)),
            OffsetCheckpoint.read(root.resolve(OffsetCheckpoint.CLEANER)));
    }

    boolean cleaned(String partition) {
        return partition != null && cleaned.containsKey(partition);
    }

    /** -1 when the checkpoint does not list it. */
    long logStart(String partition) {
        return partition == null ? -1 : logStarts.getOrDefault(partition, -1L);
    }
}
