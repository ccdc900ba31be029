package io.stallscope.analyzer.analysis.findings;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The topic-partition of a segment file from its directory ("{topic}-{partition}", as Kafka names partition
 * directories), for a write known only from a {@code jdk.FileWrite} event, which has a path but no partition.
 */
final class PartitionOfPath {
    private static final Pattern DIR = Pattern.compile("^(.+)-(\\d+)(?:\\.[0-9a-fA-F]{32}-(?:delete|future|stray))?$");

    private PartitionOfPath() {
    }

    record Tp(String topic, int partition) {
    }

    /** The partition of a file inside a partition directory, or null. */
    static Tp of(String path) {
        if (path == null) return null;
        int slash = path.lastIndexOf('/');
        if (slash <= 0) return null;
        String parent = path.substring(0, slash);
        Matcher m = DIR.matcher(parent.substring(parent.lastIndexOf('/') + 1));
        if (!m.matches()) return null;
        try {
            return new Tp(m.group(1), Integer.parseInt(m.group(2)));
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
