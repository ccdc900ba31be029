package io.stallscope.analyzer.read;

import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.SourceFile;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.function.LongConsumer;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/**
 * Reads JFR files, plain or gzipped, chunk by chunk into a {@link Recording}. Each chunk is memory-mapped
 * on its own, so files larger than 2 GB work as long as each chunk is smaller.
 */
public final class JfrFileReader {
    private JfrFileReader() {
    }

    /**
     * Reads {@code path} as file number {@code fileIndex}.
     *
     * @param progress told how many bytes of this file have been read so far (may be null)
     * @throws JfrFormatException when the file is not a readable recording; a file that is merely cut
     *                            short is read as far as possible and warned about in {@link SourceFile#warnings}
     */
    public static SourceFile read(Path path, Recording rec, LongConsumer progress) throws IOException {
        SourceFile file = new SourceFile(rec.files.size(), path.toString());
        Path plain = path;
        Path temp = null;
        try {
            if (!Files.isRegularFile(path)) {
                if (!Files.exists(path)) throw new NoSuchFileException(path.toString());
                throw new JfrFormatException("not a regular file");
            }
            if (isGzip(path)) {
                temp = Files.createTempFile("stallscope-", ".jfr");
                gunzip(path, temp, file);
                plain = temp;
            }
            readPlain(plain, rec, file, progress);
        } catch (BufferUnderflowException | IndexOutOfBoundsException | IllegalArgumentException
                 | ArithmeticException | NegativeArraySizeException | ClassCastException e) {
            // Corrupt data that slipped past the explicit checks still ends as a one-line error.
            throw new JfrFormatException("corrupt recording (" + e.getClass().getSimpleName() + ")");
        } catch (StackOverflowError e) {
            throw new JfrFormatException("corrupt recording (types nested without end)");
        } finally {
            if (temp != null) Files.deleteIfExists(temp);
        }
        rec.files.add(file);
        return file;
    }

    private static boolean isGzip(Path path) throws IOException {
        try (InputStream in = Files.newInputStream(path)) {
            return in.read() == 0x1f && in.read() == 0x8b;
        }
    }

    private static void gunzip(Path from, Path to, SourceFile file) throws IOException {
        try (InputStream in = new GZIPInputStream(Files.newInputStream(from), 1 << 16);
             OutputStream out = Files.newOutputStream(to)) {
            byte[] b = new byte[1 << 16];
            try {
                for (int n; (n = in.read(b)) > 0; ) out.write(b, 0, n);
            } catch (java.io.EOFException e) {
                file.warnings.add("gzip stream is cut short; reading what it held");
            } catch (ZipException e) {
                throw new JfrFormatException("corrupt gzip data (" + e.getMessage() + ")");
            }
        }
    }

    private static void readPlain(Path path, Recording rec, SourceFile file, LongConsumer progress) throws IOException {
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            long fileSize = ch.size();
            if (fileSize == 0) throw new JfrFormatException("empty file");
            long pos = 0;
            while (pos < fileSize) {
                long left = fileSize - pos;
                if (left < ChunkReader.HEADER_SIZE) {
                    if (file.chunks == 0) throw new JfrFormatException(startsWithMagic(ch) ? "file is cut short inside its first chunk header" : "not a JFR file");
                    file.warnings.add("file ends with " + left + " stray bytes after the last chunk");
                    break;
                }
                ByteBuffer head = ByteBuffer.allocate(ChunkReader.HEADER_SIZE);
                ch.read(head, pos);
                head.flip();
                if (!ChunkReader.hasMagic(head, 0)) {
                    if (file.chunks == 0) throw new JfrFormatException("not a JFR file");
                    file.warnings.add("bytes after the last chunk are not a JFR chunk; ignored");
                    break;
                }
                long size = head.getLong(8);
                long mapLen = Math.min(left, size < ChunkReader.HEADER_SIZE ? left : size);
                if (mapLen > Integer.MAX_VALUE) throw new JfrFormatException("chunk larger than 2 GB is not supported");
                ByteBuffer chunk = ch.map(FileChannel.MapMode.READ_ONLY, pos, mapLen);
                long declared = new ChunkReader(chunk, 0, (int) mapLen, rec, file).read();
                if (declared > left) break;
                pos += declared;
                if (progress != null) progress.accept(pos);
            }
        }
        if (file.startNanos == Long.MAX_VALUE) {
            file.startNanos = 0;
            file.endNanos = 0;
        }
    }

    private static boolean startsWithMagic(FileChannel ch) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(4);
        ch.read(b, 0);
        b.flip();
        return ChunkReader.hasMagic(b, 0);
    }
}
