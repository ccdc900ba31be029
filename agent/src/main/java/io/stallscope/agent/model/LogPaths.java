package io.stallscope.agent.model;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the topic-partition from a path inside a Kafka log directory. A partition's directory is
 * "{topic}-{partition}", with a suffix while it is being deleted ("{topic}-{p}.{uuid}-delete"),
 * moved between disks ("-future") or found stray ("-stray"); its files are segments
 * (000...123.log, .index, .timeindex, .txnindex, .snapshot, also with .deleted/.cleaned/.swap). A remote op's path
 * ({@link RemotePaths}) names its topic-partition the same way.
 */
public final class LogPaths {
    private static final Pattern PARTITION_DIR =
        Pattern.compile("^(.+)-(\\d+)(?:\\.[0-9a-fA-F]{32}-(?:delete|future|stray))?$");
    private static final Pattern SEGMENT_FILE = Pattern.compile(
        "^\\d{20}\\.(?:log|index|timeindex|txnindex|snapshot)(?:\\.(?:deleted|cleaned|swap))?$");

    private LogPaths() {
    }

    /** Returns null when the path is not inside a partition directory. */
    public static TopicPartition topicPartition(String path) {
        if (path == null || path.isEmpty()) {
            return null;
        }
        if (RemotePaths.isRemotePath(path)) {
            return RemotePaths.topicPartition(path);
        }
        String p = path;
        while (p.length() > 1 && (p.endsWith("/") || p.endsWith("\\"))) {
            p = p.substring(0, p.length() - 1);
        }
        String last = lastPart(p);
        String dir = last;
        if (SEGMENT_FILE.matcher(last).matches() || last.endsWith(".tmp") || last.equals("leader-epoch-checkpoint")
            || last.equals("partition.metadata")) {
            String parent = p.substring(0, Math.max(0, p.length() - last.length() - 1));
            dir = lastPart(parent);
        }
        return partitionDir(dir);
    }

    /** The topic-partition a partition directory's name gives, or null. */
    static TopicPartition partitionDir(String dir) {
        Matcher m = PARTITION_DIR.matcher(dir);
        if (!m.matches()) {
            return null;
        }
        try {
            return new TopicPartition(m.group(1), Integer.parseInt(m.group(2)));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static String lastPart(String p) {
        int slash = Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\'));
        return slash < 0 ? p : p.substring(slash + 1);
    }
}
