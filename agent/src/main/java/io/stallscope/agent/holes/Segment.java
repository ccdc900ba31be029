package io.stallscope.agent.holes;

import java.nio.file.Path;

/** A segment as the hole rule sees it: its file, first offset (the file's name), next offset and size. */
public final class Segment {
    private final Path file;
    private final long baseOffset;
    private final long nextOffset;
    private final long size;

    public Segment(Path file, long baseOffset, long nextOffset, long size) {
        this.file = file;
        this.baseOffset = baseOffset;
        this.nextOffset = nextOffset;
        this.size = size;
    }

    /** The base offset a segment file's name gives ("00000000000000001024.log"), or -1 if it is no segment file. */
    public static long baseOffsetOf(String fileName) {
        if (!fileName.matches("\\d{20}\\.log")) {
            return -1;
        }
        return Long.parseLong(fileName.substring(0, 20));
    }

    public Path file() {
        return file;
    }

    public long baseOffset() {
        return baseOffset;
    }

    /** -1 when not read (the live check reads only the recovered segment's end, not the next one's). */
    public long nextOffset() {
        return nextOffset;
    }

    public long size() {
        return size;
    }

    @Override
    public String toString() {
        return file.getFileName() + " (" + size + " bytes, " + (nextOffset < 0 ? "from offset " + baseOffset
            : nextOffset == baseOffset ? "no records" : "offsets " + baseOffset + "-" + (nextOffset - 1)) + ")";
    }
}
