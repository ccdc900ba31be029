package io.stallscope.agent.holes;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * check-logs: every hole in the logs under a log dir (or in one partition directory), by {@link HoleRule}, read
 * from the files alone: a stopped broker's, or a live one's read-only. Which topics are compacted it learns from the
 * log dir's cleaner-offset-checkpoint and from the topics the operator names: the topic configs are not in the log
 * dir under KRaft.
 */
public final class LogDirCheck {
    private final Set<String> compactedTopics;
    private final List<Hole> holes = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private int logs;

    public LogDirCheck(Set<String> compactedTopics) {
        this.compactedTopics = new TreeSet<>(compactedTopics);
    }

    /** A log dir (its partition directories) or a single partition directory. */
    public void check(Path dir) throws IOException {
        if (!Files.isDirectory(dir) || !Files.isReadable(dir)) {
            throw new IOException(dir + " is not a readable directory");
        }
        Path name = dir.getFileName();
        if (name != null && PartitionDirs.partitionOf(name.toString()) != null && !LogScan.segmentFiles(dir).isEmpty()) {
            checkLog(dir, LogDirFacts.read(dir.toAbsolutePath().getParent()));
            return;
        }
        LogDirFacts facts = LogDirFacts.read(dir);
        List<Path> partitions = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path p : entries) {
                if (Files.isDirectory(p) && PartitionDirs.partitionOf(p.getFileName().toString()) != null) {
                    partitions.add(p);
                }
            }
        }
        Collections.sort(partitions);
        for (Path p : partitions) {
            checkLog(p, facts);
        }
    }

    private void checkLog(Path dir, LogDirFacts facts) throws IOException {
        logs++;
        String dirName = dir.getFileName().toString();
        String partition = PartitionDirs.partitionOf(dirName);
        boolean compacted = facts.cleaned(partition) || compactedTopics.contains(PartitionDirs.topicOf(dirName));
        String unverifiable = HoleRule.unverifiable(dirName, compacted);
        long logStart = facts.logStart(partition);
        List<LogScan.SegmentAndEnd> segments = LogScan.all(dir);
        for (int i = 0; i + 1 < segments.size(); i++) {
            LogScan.SegmentAndEnd s = segments.get(i);
            if (s.end.tornTail()) {
                notes.add(dir + ": not recovered yet: " + s.segment.file().getFileName() + " has " + (s.end.size()
                    - s.end.validBytes()) + " bytes after its last complete batch; the broker's next recovery of it"
                    + " truncates it there and deletes the later segments, so no later gap is judged");
                return;
            }
            Hole hole = HoleRule.between(partition, logStart, s.segment, segments.get(i + 1).segment);
            if (hole == null) {
                continue;
            }
            if (unverifiable != null) {
                notes.add(dir + ": gap of " + hole.missing() + " offsets before " + hole.after().file().getFileName()
                    + ", unverifiable (" + unverifiable + ")");
            } else {
                holes.add(hole);
            }
        }
    }

    public List<Hole> holes() {
        return holes;
    }

    /** Gaps that are not judged, and logs not recovered yet. */
    public List<String> notes() {
        return notes;
    }

    public int logs() {
        return logs;
    }
}
