package io.stallscope.analyzer.read;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Reads JFR's variable-length encodings from a buffer, never past {@code limit}.
 * Every read is bounds-checked so that corrupt input ends in a {@link JfrFormatException}, not an
 * exception from deep inside the JDK or a loop over garbage.
 */
final class Cursor {
    final ByteBuffer buf;
    int pos;
    int limit;
    /** The array behind a heap buffer (null for a mapped one), and the buffer position of its first byte. */
    private final byte[] array;
    private final int arrayOffset;
    /**
     * How far {@link #varlongInEvent} may read: the end of the events, past the limit of the event being read. Its
     * caller checks the event's limit after the last field.
     */
    int outerLimit;

    Cursor(ByteBuffer buf, int pos, int limit) {
        this.buf = buf;
        this.pos = pos;
        this.limit = limit;
        this.outerLimit = limit;
        this.array = buf.hasArray() ? buf.array() : null;
        this.arrayOffset = array == null ? 0 : buf.arrayOffset();
    }

    static JfrFormatException corrupt(String what) {
        return new JfrFormatException(what);
    }

    int remaining() {
        return limit - pos;
    }

    byte u1() throws JfrFormatException {
        if (pos >= limit) throw corrupt("unexpected end of data");
        return buf.get(pos++);
    }

    /** The next byte, not consumed. */
    byte peekU1() throws JfrFormatException {
        if (pos >= limit) throw corrupt("unexpected end of data");
        return buf.get(pos);
    }

    /** Whether the next {@code len} bytes are {@code b[0, len)}; consumes nothing. */
    boolean bytesEqual(byte[] b, int len) throws JfrFormatException {
        need(len);
        if (array != null) return java.util.Arrays.equals(array, arrayOffset + pos, arrayOffset + pos + len, b, 0, len);
        for (int i = 0; i < len; i++) {
            if (buf.get(pos + i) != b[i]) return false;
        }
        return true;
    }

    /** Copies the next {@code len} bytes into {@code to}; consumes nothing. */
    void copy(byte[] to, int len) throws JfrFormatException {
        need(len);
        buf.get(pos, to, 0, len);
    }

    /** The next {@code len} bytes as text in {@code cs}, consumed. */
    String text(int len, java.nio.charset.Charset cs) throws JfrFormatException {
        need(len);
        byte[] bytes = new byte[len];
        buf.get(pos, bytes);
        pos += len;
        return new String(bytes, cs);
    }

    long varlong() throws JfrFormatException {
        // One loop with the bound check inline: most fields end within 9 bytes of their event's end, so a
        // "whole varint in range" fast path would rarely apply.
        int p = pos;
        int lim = limit;
        long result = 0;
        for (int shift = 0; shift < 56; shift += 7) {
            if (p >= lim) throw corrupt("unexpected end of data");
            byte b = buf.get(p++);
            result |= (long) (b & 0x7f) << shift;
            if (b >= 0) {
                pos = p;
                return result;
            }
        }
        if (p >= lim) throw corrupt("unexpected end of data");
        result |= (long) (buf.get(p++) & 0xff) << 56;
        pos = p;
        return result;
    }

    /**
     * A varint of an event whose fields are all varints, read without a bound check per byte: a lock-heavy
     * recording is tens of millions of such events, and the checks (the event's limit, then the buffer's) were most
     * of their reading. Only the end of the events bounds it, so the caller must call {@link #checkInEvent} after the
     * event's last field: a field that ran past the event is then the same "unexpected end of data".
     */
    long varlongInEvent() throws JfrFormatException {
        byte[] a = array;
        int p = pos;
        // Nine bytes is the longest varint; nearer the end, or in a mapped buffer, the checked read.
        if (a == null || outerLimit - p < 9) return varlong();
        int i = p + arrayOffset;
        long result = 0;
        for (int shift = 0; shift < 56; shift += 7) {
            byte b = a[i++];
            result |= (long) (b & 0x7f) << shift;
            if (b >= 0) {
                pos = i - arrayOffset;
                return result;
            }
        }
        result |= (long) (a[i++] & 0xff) << 56;
        pos = i - arrayOffset;
        return result;
    }

    /** After {@link #varlongInEvent}: fails when the fields ran past the event's limit. */
    void checkInEvent() throws JfrFormatException {
        if (pos > limit) throw corrupt("unexpected end of data");
    }

    int varint() throws JfrFormatException {
        return (int) varlong();
    }

    /** A count of following items, each at least {@code minBytes} long: rejects counts the data cannot hold. */
    int count(int minBytes) throws JfrFormatException {
        long n = varlong();
        // Elements that take no bytes get a fixed cap, so that no loop runs for long over garbage.
        long max = minBytes > 0 ? (long) remaining() / minBytes : 1 << 20;
        if (n < 0 || n > max) {
            throw corrupt("implausible count " + n);
        }
        return (int) n;
    }

    float f4() throws JfrFormatException {
        need(4);
        float f = buf.getFloat(pos);
        pos += 4;
        return f;
    }

    double f8() throws JfrFormatException {
        need(8);
        double d = buf.getDouble(pos);
        pos += 8;
        return d;
    }

    void skip(int n) throws JfrFormatException {
        need(n);
        pos += n;
    }

    private void need(int n) throws JfrFormatException {
        if (n < 0 || limit - pos < n) throw corrupt("unexpected end of data");
    }

    /**
     * A string in any of JFR's encodings. A reference into the chunk's string pool (encoding 2) comes back
     * as a {@link PoolString} because the pool may be read after the value that refers to it.
     */
    Object string() throws JfrFormatException {
        byte enc = u1();
        switch (enc) {
            case 0:
                return null;
            case 1:
                return "";
            case 2:
                return new PoolString(varlong());
            case 3:
            case 5:
                return text(count(1), enc == 3 ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
            case 4: {
                int len = count(1);
                char[] chars = new char[len];
                for (int i = 0; i < len; i++) chars[i] = (char) varint();
                return new String(chars);
            }
            default:
                throw corrupt("invalid string encoding " + enc);
        }
    }

    void skipString() throws JfrFormatException {
        byte enc = u1();
        switch (enc) {
            case 0:
            case 1:
                return;
            case 2:
                varlong();
                return;
            case 3:
            case 5:
                skip(count(1));
                return;
            case 4: {
                int len = count(1);
                for (int i = 0; i < len; i++) varlong();
                return;
            }
            default:
                throw corrupt("invalid string encoding " + enc);
        }
    }

    /** A string-pool reference not yet resolved. */
    record PoolString(long key) {
    }
}
