package io.stallscope.analyzer.read;

import io.stallscope.analyzer.model.SourceFile;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/**
 * Inflates a gzipped recording into a file for the reader to map, refusing what is not one before writing a byte:
 * the inflated data must start with the JFR magic. And no more than a cap is written: real recordings inflate 2.5 to
 * 5 times (the public fixtures, broker recordings made here), a gzip bomb a thousand times, so a few MB could fill the
 * disk. The cap is {@link #DEFAULT_RATIO} times the gzip file (at least {@link #FLOOR}) and at most
 * {@link #DEFAULT_MAX}; {@code -Dstallscope.gunzip.ratio=N} and {@code -Dstallscope.gunzip.max=BYTES} raise them.
 */
final class Gunzip {
    static final String RATIO_PROPERTY = "stallscope.gunzip.ratio";
    static final String MAX_PROPERTY = "stallscope.gunzip.max";
    static final long DEFAULT_RATIO = 20;
    static final long DEFAULT_MAX = 64L << 30;
    /** A small file may inflate more than most without being a bomb; this much is allowed whatever its ratio. */
    static final long FLOOR = 16L << 20;

    private final InputStream in;
    private final SourceFile file;
    private boolean ended;

    private Gunzip(InputStream in, SourceFile file) {
        this.in = in;
        this.file = file;
    }

    static boolean isGzip(Path path) throws IOException {
        try (InputStream in = Files.newInputStream(path)) {
            return in.read() == 0x1f && in.read() == 0x8b;
        }
    }

    /** Inflates {@code from} into a new temporary file, which the caller deletes; cut-short data is warned about. */
    static Path toTempFile(Path from, SourceFile file) throws IOException {
        long ratio = Long.getLong(RATIO_PROPERTY, DEFAULT_RATIO);
        long max = Long.getLong(MAX_PROPERTY, DEFAULT_MAX);
        long cap = Math.min(max, Math.max(FLOOR, multiply(ratio, Files.size(from))));
        try (InputStream in = new GZIPInputStream(Files.newInputStream(from), 1 << 16)) {
            return new Gunzip(in, file).copy(cap, cap == max
                    ? "the limit on a gunzipped recording; gunzip it yourself or raise the limit with JAVA_OPTS=-D" + MAX_PROPERTY + "=BYTES"
                    : ratio + " times its gzip size (recordings: 2-5 times); gunzip it yourself or raise the limit with JAVA_OPTS=-D"
                            + RATIO_PROPERTY + "=N");
        } catch (ZipException e) {
            throw new JfrFormatException("corrupt gzip data (" + e.getMessage() + ")");
        }
    }

    private Path copy(long cap, String why) throws IOException {
        byte[] b = new byte[1 << 16];
        int n = 0;
        for (int k; n < b.length && (k = read(b, n)) > 0; ) n += k;
        if (n == 0) throw new JfrFormatException("empty file (the gzip data inflates to nothing)");
        if (!ChunkReader.hasMagic(ByteBuffer.wrap(b, 0, n), 0)) {
            throw new JfrFormatException("not a JFR file (the gzip data does not start with the JFR magic)");
        }
        Path temp = Files.createTempFile("stallscope-", ".jfr");
        boolean done = false;
        try (OutputStream out = Files.newOutputStream(temp)) {
            long written = 0;
            do {
                written += n;
                if (written > cap) throw new JfrFormatException("gzip data inflates past " + size(cap) + ", " + why);
                out.write(b, 0, n);
            } while ((n = read(b, 0)) > 0);
            done = true;
        } finally {
            if (!done) Files.deleteIfExists(temp);
        }
        return temp;
    }

    /** Bytes into {@code b} from {@code off}; -1 at the end, where data cut short also ends, with a warning. */
    private int read(byte[] b, int off) throws IOException {
        if (ended) return -1;
        try {
            int n = in.read(b, off, b.length - off);
            ended = n < 0;
            return n;
        } catch (EOFException e) {
            ended = true;
            file.warnings.add("gzip stream is cut short; reading what it held");
            return -1;
        }
    }

    private static String size(long bytes) {
        return bytes >= 10_000_000_000L ? String.format(Locale.ROOT, "%.0f GB", bytes / 1e9)
                : String.format(Locale.ROOT, "%.0f MB", bytes / 1e6);
    }

    private static long multiply(long a, long b) {
        long r = a * b;
        return a != 0 && (r / a != b || r < 0) ? Long.MAX_VALUE : r;
    }
}
