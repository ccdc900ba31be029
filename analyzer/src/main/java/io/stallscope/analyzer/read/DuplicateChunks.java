package io.stallscope.analyzer.read;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.Map;

/**
 * Finds chunks of a file that repeat an earlier one: the same header (size, start time, duration, start ticks), then
 * the same digest of the whole chunk, then confirmed byte for byte, so two chunks that only share a header are both
 * read. A file without repeated headers costs one map lookup per chunk; a chunk whose header was seen is digested
 * once (the first chunk with that header too, when a second one comes) and compared with at most one earlier chunk,
 * the one with its digest: linear, where comparing it with every earlier chunk of its header was quadratic in a file
 * of many chunks that share a header but not their bytes.
 */
final class DuplicateChunks {
    /**
     * Its own equals and hashCode: a record's generated ones are bootstrapped through invokedynamic on first use,
     * which spun 14 method-handle classes in about 20 ms of every report's start (the first record hashed).
     */
    private record Key(long size, long startNanos, long durationNanos, long startTicks) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.size == size && k.startNanos == startNanos && k.durationNanos == durationNanos
                    && k.startTicks == startTicks;
        }

        @Override
        public int hashCode() {
            long h = size;
            h = 31 * h + startNanos;
            h = 31 * h + durationNanos;
            h = 31 * h + startTicks;
            return Long.hashCode(h);
        }
    }

    /** The chunks seen with one header: the first, until a second comes, then all of them by digest. */
    private static final class Group {
        final long first;
        Map<Digest, Long> byDigest;

        Group(long first) {
            this.first = first;
        }
    }

    private record Digest(byte[] bytes) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Digest d && java.util.Arrays.equals(d.bytes, bytes);
        }

        @Override
        public int hashCode() {
            return java.util.Arrays.hashCode(bytes);
        }
    }

    private final FileChannel ch;
    private final Map<Key, Group> seen = new HashMap<>();
    private final ByteBuffer x = ByteBuffer.allocate(1 << 16);
    private final ByteBuffer y = ByteBuffer.allocate(1 << 16);
    /**
     * Made when a header first repeats: getting it loads the platform's security providers, about 10 ms of a small
     * report's start, for the rare file that needs it.
     */
    private MessageDigest sha;
    private int skipped;
    private long firstSkippedAt = -1;

    DuplicateChunks(FileChannel ch) {
        this.ch = ch;
    }

    private MessageDigest sha() {
        if (sha == null) {
            try {
                // A cryptographic digest: a file cannot be crafted with chunks whose digests collide to force comparisons.
                sha = MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("every Java platform has SHA-256", e);
            }
        }
        return sha;
    }

    /**
     * Whether the complete chunk at {@code pos}, whose header is {@code head}, repeats one seen before; remembers
     * it otherwise.
     */
    boolean seenBefore(long pos, ByteBuffer head) throws IOException {
        Key key = new Key(head.getLong(8), head.getLong(32), head.getLong(40), head.getLong(48));
        Group g = seen.get(key);
        if (g == null) {
            seen.put(key, new Group(pos));
            return false;
        }
        if (g.byDigest == null) {
            g.byDigest = new HashMap<>();
            Digest d = digest(g.first, key.size());
            if (d != null) g.byDigest.put(d, g.first);
        }
        Digest d = digest(pos, key.size());
        if (d == null) return false;
        Long earlier = g.byDigest.putIfAbsent(d, pos);
        if (earlier != null && sameBytes(earlier, pos, key.size())) {
            skipped++;
            if (firstSkippedAt < 0) firstSkippedAt = pos;
            return true;
        }
        return false;
    }

    int skipped() {
        return skipped;
    }

    String warning() {
        return skipped + (skipped == 1 ? " chunk repeats" : " chunks repeat") + " an earlier chunk byte for byte (first at byte "
                + firstSkippedAt + "); skipped, so its waits are not counted twice";
    }

    /** The digest of the {@code size} bytes at {@code pos}, or null when the file ends before them. */
    private Digest digest(long pos, long size) throws IOException {
        MessageDigest sha = sha();
        sha.reset();
        for (long off = 0; off < size; off += x.capacity()) {
            int len = (int) Math.min(x.capacity(), size - off);
            x.clear().limit(len);
            if (!readFully(pos + off, x)) return null;
            x.flip();
            sha.update(x);
        }
        return new Digest(sha.digest());
    }

    private boolean sameBytes(long a, long b, long size) throws IOException {
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
