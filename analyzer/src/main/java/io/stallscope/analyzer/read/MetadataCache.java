package io.stallscope.analyzer.read;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The metadata of one file's chunks, parsed once per distinct metadata event: a rotated recording repeats the same
 * metadata in every chunk, and parsing it again for each chunk costs more than comparing its bytes. Events are told
 * apart by what follows their header: the JDK stamps each chunk's copy with that chunk's start time, so whole events
 * never matched (30 parses of the same 97 KB in a 30-chunk recording, and C2 spent 0.6 s compiling the parser).
 * Shared by the threads reading the file's chunks; a {@link Metadata} is not changed after it is read.
 */
final class MetadataCache {
    private final ConcurrentHashMap<Key, Metadata> parsed = new ConcurrentHashMap<>();

    /** The metadata event at {@code pos} (its size is its first varint), not reading past {@code limit}. */
    Metadata read(ByteBuffer buf, int pos, int limit) throws JfrFormatException {
        Cursor c = new Cursor(buf, pos, limit);
        int size = c.varint();
        if (size <= 0 || size > limit - pos) return Metadata.read(new Cursor(buf, pos, limit)); // it fails as it fails
        // The header after the size: type, start, duration, metadata id, none of which the parse keeps.
        long type = c.varlong();
        c.varlong();
        c.varlong();
        c.varlong();
        int body = c.pos - pos;
        if (type != 0 || body > size) return Metadata.read(new Cursor(buf, pos, limit)); // it fails as it fails
        byte[] bytes = new byte[size - body];
        buf.get(pos + body, bytes);
        Key key = new Key(bytes);
        Metadata m = parsed.get(key);
        if (m != null) return m;
        m = Metadata.read(new Cursor(buf, pos, pos + size));
        Metadata raced = parsed.putIfAbsent(key, m);
        return raced != null ? raced : m;
    }

    private static final class Key {
        final byte[] bytes;
        final int hash;

        Key(byte[] bytes) {
            this.bytes = bytes;
            this.hash = Arrays.hashCode(bytes);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.hash == hash && Arrays.equals(k.bytes, bytes);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }
}
