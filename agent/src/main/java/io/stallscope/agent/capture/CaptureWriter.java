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
 * concatenation of complete JFR files is itself a valid (multi-chunk) JFR file. Written under a hidden
 * temporary name and renamed, so a reader never sees half a capture.
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
            for (Path f : files) {
                copy(f, out);
            }
            out.force(true);
        } catch (IOException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
        return Files.size(target);
    }

    /** A plain read/write loop: never FileChannel.transferTo, which the agent itself times as an op. */
    private static void copy(Path from, FileChannel out) throws IOException {
        java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocate(64 * 1024);
        try (FileChannel in = FileChannel.open(from, StandardOpenOption.READ)) {
            while (in.read(buf) >= 0) {
                buf.flip();
                while (buf.hasRemaining()) {
                    out.write(buf);
                }
                buf.clear();
            }
        }
    }

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
