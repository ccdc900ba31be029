package io.stallscope.agent.holes;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/** The segment files of one partition directory, by base offset, as the directory lists them now. */
final class LogScan {
    private LogScan() {
    }

    static TreeMap<Long, Path> segmentFiles(Path partitionDir) throws IOException {
        TreeMap<Long, Path> files = new TreeMap<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(partitionDir, "*.log")) {
            for (Path p : entries) {
                long base = Segment.baseOffsetOf(p.getFileName().toString());
                if (base >= 0) {
                    files.put(base, p);
                }
            }
        }
        return files;
    }

    /** The segment after base, by its name alone (no record of it is read: its next offset is left unknown). */
    static Segment nextAfter(Path partitionDir, long base) throws IOException {
        java.util.Map.Entry<Long, Path> next = segmentFiles(partitionDir).higherEntry(base);
        if (next == null) {
            return null;
        }
        return new Segment(next.getValue(), next.getKey(), -1, Files.size(next.getValue()));
    }

    /** Every segment, its end read from its batch headers. */
    static List<SegmentAndEnd> all(Path partitionDir) throws IOException {
        List<SegmentAndEnd> out = new ArrayList<>();
        for (java.util.Map.Entry<Long, Path> e : segmentFiles(partitionDir).entrySet()) {
            SegmentEnd end = SegmentEnd.read(e.getValue(), e.getKey());
            out.add(new SegmentAndEnd(new Segment(e.getValue(), e.getKey(), end.nextOffset(), end.size()), end));
        }
        return out;
    }

    static final class SegmentAndEnd {
        final Segment segment;
        final SegmentEnd end;

        SegmentAndEnd(Segment segment, SegmentEnd end) {
            this.segment = segment;
            this.end = end;
        }
    }
}
