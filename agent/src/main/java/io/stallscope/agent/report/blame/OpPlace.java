package io.stallscope.agent.report.blame;

import io.stallscope.agent.model.LogPaths;
import io.stallscope.agent.model.RemotePaths;

import java.util.regex.Pattern;

/**
 * Where an op worked, read from its path: the file (a segment, index or snapshot), the partition directory
 * (the log) and the log dir holding it. An op on a log as a whole (a roll, an append) has no file. A path
 * outside any partition directory has no place: such an op is never paired with anything.
 */
final class OpPlace {
    /** Files Kafka keeps in a partition directory, as {@code LogDirOfPath} knows them. */
    private static final Pattern PARTITION_FILE = Pattern.compile(
        "^(?:\\d{20}\\..+|leader-epoch-checkpoint.*|partition\\.metadata.*|.+\\.tmp)$");

    final String file;
    final String log;
    final String logDir;

    private OpPlace(String file, String log, String logDir) {
        this.file = file;
        this.log = log;
        this.logDir = logDir;
    }

    /** The place of a path, or null when it is in no partition directory. */
    static OpPlace of(String path) {
        if (path == null || path.isEmpty() || RemotePaths.isRemotePath(path)) {
            return null; // a remote op's: on no local file, log or device
        }
        String p = path;
        while (p.length() > 1 && p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        String file = PARTITION_FILE.matcher(lastPart(p)).matches() ? p : null;
        String log = file == null ? p : parent(file);
        if (log == null || LogPaths.topicPartition(log) == null) {
            return null;
        }
        return new OpPlace(file, log, parent(log));
    }

    /**
     * What this place shares with {@code other}, narrowest first, or null when nothing: two partitions are
     * related only through their log dir or its device, never by name.
     */
    Scope sharedWith(OpPlace other, LogDirDevices devices) {
        if (file != null && file.equals(other.file)) {
            return Scope.FILE;
        }
        if (log.equals(other.log)) {
            return Scope.LOG;
        }
        if (logDir != null && logDir.equals(other.logDir)) {
            return Scope.DEVICE;
        }
        String device = logDir == null ? null : devices.device(logDir);
        if (device != null && device.equals(other.logDir == null ? null : devices.device(other.logDir))) {
            return Scope.DEVICE;
        }
        return null;
    }

    private static String lastPart(String p) {
        int slash = p.lastIndexOf('/');
        return slash < 0 ? p : p.substring(slash + 1);
    }

    private static String parent(String p) {
        int slash = p.lastIndexOf('/');
        return slash <= 0 ? null : p.substring(0, slash);
    }
}
