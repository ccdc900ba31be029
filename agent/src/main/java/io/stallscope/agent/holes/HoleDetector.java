package io.stallscope.agent.holes;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * At the end of each segment's recovery: the recovered segment's next offset (Kafka's own readNextOffset) against the
 * next segment's base, judged by {@link HoleRule}. Read-only: it lists the partition directory and reads the log dir's
 * checkpoint files, nothing else. A segment Kafka truncated is not judged: Kafka then deletes the later segments.
 */
final class HoleDetector {
    private final HoleReport report;
    /** Logs whose hole was said, and the holes counted (a segment may be recovered twice in one start). */
    private final Set<Path> reported = ConcurrentHashMap.newKeySet();
    private final Set<Path> counted = ConcurrentHashMap.newKeySet();

    HoleDetector(HoleReport report) {
        this.report = report;
    }

    /** The hole found below the recovered segment, or null (none, or one that cannot be judged). */
    Found recovered(Object self, Object kafkaSegment, Object arg1, int truncatedBytes)
        throws ReflectiveOperationException, IOException {
        if (truncatedBytes > 0) {
            report.checked("truncated");
            return null;
        }
        File file = RecoveredLog.file(kafkaSegment);
        Path dir = file.toPath().toAbsolutePath().getParent();
        long base = RecoveredLog.baseOffset(kafkaSegment);
        Segment next = LogScan.nextAfter(dir, base);
        if (next == null) {
            report.checked("last_segment");
            return null;
        }
        Segment segment = new Segment(file.toPath(), base, RecoveredLog.nextOffset(kafkaSegment), Files.size(file.toPath()));
        String dirName = dir.getFileName().toString();
        String partition = PartitionDirs.partitionOf(dirName);
        Object holder = RecoveredLog.holder(self, arg1);
        Boolean kafkaCompacted = holder == null ? null : RecoveredLog.compacted(holder);
        long kafkaLogStart = holder == null ? -1 : RecoveredLog.logStartOffset(holder);
        // the log dir's checkpoint files only when Kafka's objects do not say: a start after an unclean stop
        // recovers many segments, and most have no gap
        LogDirFacts facts = kafkaLogStart >= 0 ? null : LogDirFacts.read(dir.getParent());
        long logStart = facts == null ? kafkaLogStart : facts.logStart(partition);
        Hole hole = HoleRule.between(partition, logStart, segment, next);
        if (hole == null) {
            report.checked("no_gap");
            return null;
        }
        if (facts == null && !Boolean.TRUE.equals(kafkaCompacted)) {
            facts = LogDirFacts.read(dir.getParent());
        }
        boolean compacted = Boolean.TRUE.equals(kafkaCompacted) || facts != null && facts.cleaned(partition);
        if (HoleRule.unverifiable(dirName, compacted) != null) {
            report.checked("unverifiable");
            return null;
        }
        report.hole(hole, counted.add(segment.file()), reported.add(dir));
        return new Found(hole, dir, Boolean.FALSE.equals(kafkaCompacted) && kafkaLogStart >= 0);
    }

    /** A hole at recovery, and whether Kafka's own objects said the log is not compacted and where it starts. */
    static final class Found {
        final Hole hole;
        final Path partitionDir;
        /** False when the config or the log start came from the checkpoint files or not at all: no repair then. */
        final boolean judgedOnKafkasOwnState;

        Found(Hole hole, Path partitionDir, boolean judgedOnKafkasOwnState) {
            this.hole = hole;
            this.partitionDir = partitionDir;
            this.judgedOnKafkasOwnState = judgedOnKafkasOwnState;
        }
    }

    void failed(Throwable t) {
        report.failed(t);
    }
}
