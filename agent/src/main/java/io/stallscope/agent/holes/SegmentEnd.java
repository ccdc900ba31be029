package io.stallscope.agent.holes;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Where a segment file's records end, read from its batch headers alone: Kafka's log format v2 (baseOffset int64,
 * batchLength int32, ..., magic int8 at byte 16, lastOffsetDelta int32 at byte 23) and the legacy v0/v1 entries
 * (offset int64 = the last offset of a compressed wrapper, size int32). Opens the file read-only and reads 27
 * bytes per batch, so it may run on the segments of a live broker.
 */
public final class SegmentEnd {
    /** offset + length, the part of every batch header that says how long the batch is. */
    private static final int LOG_OVERHEAD = 12;
    private static final int MAGIC_AT = 16;
    private static final int LAST_OFFSET_DELTA_AT = 23;
    /** v2's smallest batch (a header with no records) and v0's smallest entry. */
    private static final int V2_HEADER = 61;
    private static final int V0_MIN = 14;

    private final long nextOffset;
    private final long validBytes;
    private final long size;
    private final boolean tornTail;

    private SegmentEnd(long nextOffset, long validBytes, long size, boolean tornTail) {
        this.nextOffset = nextOffset;
        this.validBytes = validBytes;
        this.size = size;
        this.tornTail = tornTail;
    }

    /** The segment whose first offset is baseOffset (its file name): its next offset is baseOffset if it holds no batch. */
    public static SegmentEnd read(Path segment, long baseOffset) throws IOException {
        try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.READ)) {
            long size = ch.size();
            long next = baseOffset;
            long pos = 0;
            ByteBuffer header = ByteBuffer.allocate(LAST_OFFSET_DELTA_AT + 4);
            while (pos + LOG_OVERHEAD <= size) {
                header.clear();
                int read = readFully(ch, header, pos);
                long offset = header.getLong(0);
                int length = header.getInt(8);
                byte magic = read > MAGIC_AT ? header.get(MAGIC_AT) : -1;
                int min = magic >= 2 ? V2_HEADER - LOG_OVERHEAD : V0_MIN;
                if (magic < 0 || magic > 2 || length < min || pos + LOG_OVERHEAD + length > size) {
                    break;
                }
                next = magic >= 2 ? offset + header.getInt(LAST_OFFSET_DELTA_AT) + 1 : offset + 1;
                pos += LOG_OVERHEAD + length;
            }
            return new SegmentEnd(next, pos, size, pos < size);
        }
    }

    private static int readFully(FileChannel ch, ByteBuffer buf, long pos) throws IOException {
        int total = 0;
        while (buf.hasRemaining()) {
            int n = ch.read(buf, pos + total);
            if (n < 0) {
                break;
            }
            total += n;
        }
        return total;
    }

    /** The offset after the segment's last complete batch. */
    public long nextOffset() {
        return nextOffset;
    }

    /** Bytes up to the end of the last complete batch. */
    public long validBytes() {
        return validBytes;
    }

    public long size() {
        return size;
    }

    /**
     * Bytes past the last complete batch (a torn batch, or zeros where XFS extended the file but the data never came):
     * Kafka's recovery of this segment truncates them and, having truncated, deletes every later segment.
     */
    public boolean tornTail() {
        return tornTail;
    }
}
