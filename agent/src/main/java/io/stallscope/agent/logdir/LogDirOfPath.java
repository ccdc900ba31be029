package io.stallscope.agent.logdir;

import io.stallscope.agent.model.LogPaths;
import io.stallscope.agent.model.RemotePaths;

import java.util.regex.Pattern;

/**
 * The log dir a path inside it belongs to: a segment file's parent is its partition directory, whose parent is
 * the log dir; a partition directory's parent is the log dir. Paths outside any partition directory give null.
 */
public final class LogDirOfPath {
    /** Files Kafka keeps in a partition directory (segments and their indexes, snapshots, checkpoints, temp files). */
    private static final Pattern PARTITION_FILE = Pattern.compile(
        "^(?:\\d{20}\\..+|leader-epoch-checkpoint.*|partition\\.metadata.*|.+\\.tmp)$");

    private LogDirOfPath() {
    }

    public static String logDir(String path) {
        if (path == null || path.isEmpty() || RemotePaths.isRemotePath(path)) {
            return null; // a remote segment's, in no log dir
        }
        String p = trimSlashes(path);
        String partitionDir = PARTITION_FILE.matcher(lastPart(p)).matches() ? parent(p) : p;
        if (partitionDir == null || LogPaths.topicPartition(partitionDir) == null) {
            return null;
        }
        String logDir = parent(partitionDir);
        return logDir == null || logDir.isEmpty() ? null : logDir;
    }

    private static String trimSlashes(String p) {
        while (p.length() > 1 && p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        return p;
    }

    private static String lastPart(String p) {
        int slash = p.lastIndexOf('/');
        return slash < 0 ? p : p.substring(slash + 1);
    }

    private static String parent(String p) {
        int slash = p.lastIndexOf('/');
        if (slash < 0) {
            return null;
        }
        return slash == 0 ? "/" : p.substring(0, slash);
    }
}
