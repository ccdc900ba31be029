package io.stallscope.analyzer.workload;

import java.io.RandomAccessFile;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;

/**
 * Page faults in Java code, as a cold Kafka index lookup takes them: a thread maps a 64 MB file and reads one byte
 * of every page through the {@link MappedByteBuffer}, mapping it afresh each pass so that every read faults again
 * (minor faults, the page being cached: the kernel's fault path, {@code asm_exc_page_fault} down to
 * {@code filemap_map_pages}, is the same as for a read from a slow disk up to the wait for the disk).
 *
 * <p>Args: {@code seconds workDir groundTruthFile} (a quarter of the seconds is enough; no ground truth).
 */
public final class PageFaultProgram {
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        long deadline = System.nanoTime() + Long.parseLong(args[0]) * 250_000_000L;
        Path dir = Paths.get(args[1]);
        Files.createDirectories(dir);
        Path file = dir.resolve("00000000000000000000.index");
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(64L << 20);
        }
        Thread reader = new Thread(() -> {
            try {
                while (System.nanoTime() < deadline) {
                    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                        MappedByteBuffer b = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size());
                        for (int i = 0; i < b.capacity(); i += 4096) sink += b.get(i);
                    }
                }
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        }, "data-plane-kafka-request-handler-0");
        reader.start();
        reader.join();
        Files.writeString(Paths.get(args[2]), "");
    }
}
