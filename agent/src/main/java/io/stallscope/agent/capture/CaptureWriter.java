package io.stallscope.agent.capture;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Joins chunk files into one capture. A JFR file is a sequence of self-describing chunks, so the
 * concatenation of complete JFR files is itself a valid (multi-chunk) JFR file. Each JFR chunk is written
 * once: the JDK recorder's files overlap by one repository chunk (the next recording starts before the
 * previous one stops, and both streams hold the chunk between), which a reader would count twice. Written
 * under a hidden temporary name and renamed, so a reader never sees half a capture.
 */
final class CaptureWriter {
    private CaptureWriter() {
    }

    /** Profiler chunks first, then the JDK's, each group in time order; returns the bytes written. */
    static long write(List<Chunk> chunks, Path target) throws IOException {
        List<Path> files = new ArrayList<>();
        int recorders = chunks.isEmpty() ? 0 : chunks.get(chunks.size() - 1).files.size();
        for (int r = 0; r < recorders; r++) {
            for (Chunk c : chunks) {
                if (r < c.files.size()) {
                    files.add(c.files.get(r));
                }
            }
        }
        Path tmp = target.resolveSibling("." + target.getFileName() + ".tmp");
        // created 0600, whatever the umask: a capture holds thread names, stacks and paths of the broker
        try (FileChannel out = FileChannel.open(tmp, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
            CaptureDir.privateFile())) {
            Set<String> written = new java.util.HashSet<>();
            for (Path f : files) {
                copyChunks(f, out, written);
            }
            out.force(true);
        } catch (IOException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
        return Files.size(target);
    }

    /** "FLR\0", the first four bytes of every JFR chunk; the chunk's size is the long at byte 8. */
    private static final int MAGIC = 0x464c5200;
    private static final int HEADER = 16;

    /**
     * Copies {@code from}'s chunks whose SHA-256 is not in {@code written} yet. Bytes that do not start a whole
     * chunk (a file cut short, not JFR) are copied as they are: the reader says what is wrong with them.
     */
    private static void copyChunks(Path from, FileChannel out, Set<String> written) throws IOException {
        try (FileChannel in = FileChannel.open(from, StandardOpenOption.READ)) {
            long at = 0;
            long end = in.size();
            while (at < end) {
                long size = chunkSize(in, at, end);
                if (size <= 0) {
                    copy(in, at, end - at, out, null);
                    return;
                }
                if (written.add(digest(in, at, size))) {
                    copy(in, at, size, out, null);
                }
                at += size;
            }
        }
    }

    /** The size of the whole chunk starting at {@code at}, or 0 when none starts there. */
    private static long chunkSize(FileChannel in, long at, long end) throws IOException {
        if (end - at < HEADER) {
            return 0;
        }
        java.nio.ByteBuffer h = java.nio.ByteBuffer.allocate(HEADER);
        while (h.hasRemaining() && in.read(h, at + h.position()) > 0) {
            // positional reads until the header is in
        }
        long size = h.getLong(8);
        return h.getInt(0) == MAGIC && size >= HEADER && size <= end - at ? size : 0;
    }

    private static String digest(FileChannel in, long at, long size) throws IOException {
        java.security.MessageDigest sha;
        try {
            sha = java.security.MessageDigest.getInstance("SHA-256");
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IOException("no SHA-256 in this JVM", e);
        }
        copy(in, at, size, null, sha);
        return new java.math.BigInteger(1, sha.digest()).toString(16);
    }

    /**
     * {@code size} bytes from {@code at} into {@code out} or the digest. A plain read/write loop: never
     * FileChannel.transferTo, which the agent itself times as an op.
     */
    private static void copy(FileChannel in, long at, long size, FileChannel out, java.security.MessageDigest sha)
        throws IOException {
        java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocate(64 * 1024);
        long done = 0;
        while (done < size) {
            buf.clear().limit((int) Math.min(buf.capacity(), size - done));
            int n = in.read(buf, at + done);
            if (n <= 0) {
                return;
            }
            done += n;
            buf.flip();
            if (sha != null) {
                sha.update(buf);
            }
            while (out != null && buf.hasRemaining()) {
                out.write(buf);
            }
        }
    }

    /** The chunks' files' sizes summed: what a capture of them takes at most (before repeated chunks are left out). */
    static long size(List<Chunk> chunks) throws IOException {
        long total = 0;
        for (Chunk c : chunks) {
            for (Path p : c.files) {
                total += Files.size(p);
            }
        }
        return total;
    }
}
