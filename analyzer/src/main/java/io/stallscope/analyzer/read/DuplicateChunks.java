package io.stallscope.analyzer.read;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds chunks of a file that repeat an earlier one: the same header (size, start time, duration, start ticks),
 * then confirmed byte for byte, so two chunks that only share a header are both read. Only candidates are
 * compared, so a file without repeats costs one map lookup per chunk.
 */
final class DuplicateChunks {
    private record Key(long size, long startNanos, long durationNanos, long startTicks) {
    }

    private final FileChannel ch;
    private final Map<Key, List<Long>> seen = new HashMap<>();
    private int skipped;
    private long firstSkippedAt = -1;

    DuplicateChunks(FileChannel ch) {
        this.ch = ch;
    }

    /**
     * Whether the complete chunk at {@code pos}, whose header is {@code head}, repeats one seen before; remembers
     * it otherwise.
     */
    boolean seenBefore(long pos, ByteBuffer head) throws IOException {
        Key key = new Key(head.getLong(8), head.getLong(32), head.getLong(40), head.getLong(48));
        List<Long> at = seen.computeIfAbsent(key, k -> new ArrayList<>(1));
        for (long earlier : at) {
            if (sameBytes(earlier, pos, key.size())) {
                skipped++;
                if (firstSkippedAt < 0) firstSkippedAt = pos;
                return true;
            }
        }
        at.add(pos);
        return false;
    }

    int skipped() {
        return skipped;
    }

    String warning() {
        return skipped + (skipped == 1 ? " chunk repeats" : " chunks repeat") + " an earlier chunk byte for byte (first at byte "
                + firstSkippedAt + "); skipped, so its waits are not counted twice";
    }

    private boolean sameBytes(long a, long b, long size) throws IOException {
        ByteBuffer x = ByteBuffer.allocate(1 << 16);
        ByteBuffer y = ByteBuffer.allocate(1 << 16);
        for (long off = 0; off < size; off += x.capacity()) {
            int len = (int) Math.min(x.capacity(), size - off);
            x.clear().limit(len);
            y.clear().limit(len);
            if (!readFully(a + off, x) || !readFully(b + off, y)) return false;
            x.flip();
            y.flip();
            if (!x.equals(y)) return false;
        }
        return true;
    }

    private boolean readFully(long pos, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (ch.read(b, pos + b.position()) < 0) return false;
        }
        return true;
    }
}
