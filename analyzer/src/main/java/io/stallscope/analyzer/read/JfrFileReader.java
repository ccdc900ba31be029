package io.stallscope.analyzer.read;

import io.stallscope.analyzer.model.IoEvents;
import io.stallscope.analyzer.model.LockEvents;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.SampleBlock;
import io.stallscope.analyzer.model.SourceFile;
import io.stallscope.analyzer.util.Parallel;
import io.stallscope.analyzer.util.Timing;

import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.LongConsumer;

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
        return read(path, rec, progress, null);
    }

    /**
     * As {@link #read(Path, Recording, LongConsumer)}, telling {@code beforeChunk} (may be null), before each chunk
     * is merged into {@code rec}, how many samples, lock events and I/O events it brings: where a streaming analysis
     * ends a window of chunks that this one would take past its bound, and drops their samples and events.
     */
    public static SourceFile read(Path path, Recording rec, LongConsumer progress, LongConsumer beforeChunk) throws IOException {
        SourceFile file = new SourceFile(rec.files.size(), path.toString());
        Path plain = path;
        Path temp = null;
        // In the recording while it is read: an analysis of a window of its chunks looks the file up.
        rec.files.add(file);
        boolean read = false;
        try {
            if (!Files.isRegularFile(path)) {
                if (!Files.exists(path)) throw new NoSuchFileException(path.toString());
                throw new JfrFormatException("not a regular file");
            }
            if (Gunzip.isGzip(path)) {
                temp = Gunzip.toTempFile(path, file);
                plain = temp;
            }
            readPlain(plain, rec, file, progress, beforeChunk);
            rec.distinguishSharedNames(file.index);
            read = true;
        } catch (AnalysisFailed e) {
            throw e.failure;
        } catch (BufferUnderflowException | IndexOutOfBoundsException | IllegalArgumentException
                 | ArithmeticException | NegativeArraySizeException | ClassCastException e) {
            // Corrupt data that slipped past the explicit checks still ends as a one-line error.
            throw new JfrFormatException("corrupt recording (" + e.getClass().getSimpleName() + ")");
        } catch (StackOverflowError e) {
            throw new JfrFormatException("corrupt recording (types nested without end)");
        } finally {
            if (!read) rec.files.remove(file);
            if (temp != null) Files.deleteIfExists(temp);
        }
        return file;
    }

    /** A failure of what ran after a chunk (the analysis), kept apart from the reader's "corrupt recording". */
    private static final class AnalysisFailed extends RuntimeException {
        final RuntimeException failure;

        AnalysisFailed(RuntimeException failure) {
            super(failure);
            this.failure = failure;
        }
    }

    /** A chunk found from its header: where it is, how many bytes to map, or why it cannot be read. */
    private record ChunkAt(long pos, long mapLen, String error) {
    }

    private static void readPlain(Path path, Recording rec, SourceFile file, LongConsumer progress, LongConsumer beforeChunk) throws IOException {
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            long fileSize = ch.size();
            if (fileSize == 0) throw new JfrFormatException("empty file");
            // The chunk headers say where each chunk is; the chunks themselves are independent (each has its
            // own metadata and constant pools), so they are read in parallel and merged in file order.
            List<ChunkAt> chunks = new ArrayList<>();
            DuplicateChunks duplicates = new DuplicateChunks(ch);
            String trailing = null;
            long pos = 0;
            while (pos < fileSize) {
                long left = fileSize - pos;
                if (left < ChunkReader.HEADER_SIZE) {
                    if (chunks.isEmpty()) throw new JfrFormatException(startsWithMagic(ch) ? "file is cut short inside its first chunk header" : "not a JFR file");
                    trailing = "file ends with " + left + " stray bytes after the last chunk";
                    break;
                }
                ByteBuffer head = ByteBuffer.allocate(ChunkReader.HEADER_SIZE);
                ch.read(head, pos);
                head.flip();
                if (!ChunkReader.hasMagic(head, 0)) {
                    if (chunks.isEmpty()) throw new JfrFormatException("not a JFR file");
                    trailing = "bytes after the last chunk are not a JFR chunk; ignored";
                    break;
                }
                long size = head.getLong(8);
                long mapLen = Math.min(left, size < ChunkReader.HEADER_SIZE ? left : size);
                // A chunk written twice (a capture or a concatenation that took the same chunk again) would count
                // every wait in it twice: it is skipped, and the file gets one warning.
                if (size == mapLen && duplicates.seenBefore(pos, head)) {
                    pos += size;
                    continue;
                }
                chunks.add(new ChunkAt(pos, mapLen, mapLen > Integer.MAX_VALUE ? "chunk larger than 2 GB is not supported" : null));
                // A chunk that claims more than the file holds is the last; one too small to be a chunk fails to read.
                if (size > left || size < ChunkReader.HEADER_SIZE || mapLen > Integer.MAX_VALUE) break;
                pos += size;
            }
            readChunks(ch, chunks, Math.max(1, Math.min(Parallel.threads(), chunks.size())), rec, file, progress, beforeChunk);
            if (trailing != null) file.warnings.add(trailing);
            if (duplicates.skipped() > 0) file.warnings.add(duplicates.warning());
        }
        if (file.startNanos == Long.MAX_VALUE) {
            file.startNanos = 0;
            file.endNanos = 0;
        }
    }

    /** One chunk read on its own, waiting to be merged. */
    private record ChunkRead(Recording rec, SampleBlock samples, SourceFile file, boolean intervalFromWall) {
    }

    /**
     * Reads chunks on {@code threads} threads, a few ahead of the merge (which bounds the memory held by chunks
     * read but not yet merged), and merges them in file order on this thread: the same recording on any number
     * of threads. The first failing chunk in file order fails the file, as reading them one by one would.
     */
    private static void readChunks(FileChannel ch, List<ChunkAt> chunks, int threads, Recording rec, SourceFile file,
                                   LongConsumer progress, LongConsumer beforeChunk) throws IOException {
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "stallscope-reader");
            t.setDaemon(true);
            return t;
        });
        try {
            int n = chunks.size();
            int ahead = threads + 1;
            List<Future<ChunkRead>> reads = new ArrayList<>();
            for (int i = 0; i < n; i++) reads.add(null);
            // Heap buffers handed from one chunk's read to the next: a chunk of tens of MB is a humongous
            // object for G1, and allocating (zeroing) one per chunk cost more than the copy into it.
            java.util.concurrent.BlockingQueue<ByteBuffer> spares = new java.util.concurrent.LinkedBlockingQueue<>();
            // Likewise each reading thread's sample columns, which only the finished block leaves.
            java.util.concurrent.BlockingQueue<SampleBlock.Builder> builders = new java.util.concurrent.LinkedBlockingQueue<>();
            // And lock-event columns: grown from nothing for each chunk they cost more (zeroing, page faults) than decoding.
            java.util.concurrent.BlockingQueue<LockEvents> lockColumns = new java.util.concurrent.LinkedBlockingQueue<>();
            // And I/O-event columns, for the same reason: a handler storm's chunk holds hundreds of thousands.
            java.util.concurrent.BlockingQueue<IoEvents> ioColumns = new java.util.concurrent.LinkedBlockingQueue<>();
            MetadataCache metadata = new MetadataCache();
            for (int i = 0; i < Math.min(n, ahead); i++) reads.set(i, pool.submit(readTask(ch, chunks.get(i), i + 1, file, spares, builders, lockColumns, ioColumns, metadata)));
            long waited = 0;
            long merging = 0;
            for (int i = 0; i < n; i++) {
                long t0 = System.nanoTime();
                ChunkRead r = result(reads.get(i));
                long t1 = System.nanoTime();
                reads.set(i, null);
                if (i + ahead < n) {
                    reads.set(i + ahead, pool.submit(readTask(ch, chunks.get(i + ahead), i + ahead + 1, file, spares, builders, lockColumns, ioColumns, metadata)));
                }
                if (beforeChunk != null) {
                    try {
                        beforeChunk.accept(r.samples().size() + (long) r.rec().locks.size() + r.rec().io.size());
                    } catch (RuntimeException e) {
                        throw new AnalysisFailed(e);
                    }
                }
                ChunkMerge.merge(r.rec(), r.samples(), r.file(), r.intervalFromWall(), rec, file);
                // Kept for the next chunk unless a huge chunk made them big: heap is for the window, not for spares.
                if (r.rec().locks.capacity() <= SPARE_LOCK_EVENTS) {
                    r.rec().locks.reset();
                    lockColumns.offer(r.rec().locks);
                }
                if (r.rec().io.capacity() <= SPARE_IO_EVENTS) {
                    r.rec().io.reset();
                    ioColumns.offer(r.rec().io);
                }
                waited += t1 - t0;
                merging += System.nanoTime() - t1;
                ChunkAt c = chunks.get(i);
                if (progress != null) progress.accept(c.pos() + c.mapLen());
            }
            if (Timing.enabled()) {
                System.err.printf(java.util.Locale.ROOT, "analyzer: timing: read %s: %d chunks on %d threads; merge waited %.2f s for chunks, merged for %.2f s%n",
                        file.path, n, threads, waited / 1e9, merging / 1e9);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static Callable<ChunkRead> readTask(FileChannel ch, ChunkAt c, int number, SourceFile file,
                                               java.util.Queue<ByteBuffer> spares, java.util.Queue<SampleBlock.Builder> builders,
                                               java.util.Queue<LockEvents> lockColumns, java.util.Queue<IoEvents> ioColumns,
                                               MetadataCache metadata) {
        return () -> {
            if (c.error() != null) throw new JfrFormatException(c.error());
            ByteBuffer chunk = bytes(ch, c, spares.poll());
            LockEvents locks = lockColumns.poll();
            if (locks == null) locks = new LockEvents();
            IoEvents io = ioColumns.poll();
            if (io == null) io = new IoEvents();
            Recording local = new Recording(locks, io);
            SourceFile localFile = new SourceFile(file.index, file.path);
            SampleBlock.Builder samples = builders.poll();
            if (samples == null) samples = new SampleBlock.Builder();
            ChunkReader reader = new ChunkReader(chunk, 0, (int) c.mapLen(), local, samples, localFile, number, metadata);
            try {
                reader.read();
                return new ChunkRead(local, samples.build(), localFile, reader.intervalFromWall);
            } finally {
                // What was read holds no reference to the bytes (strings and ids are copied out), so they can be reused.
                if (!chunk.isDirect()) spares.offer(chunk);
                samples.clear();
                builders.offer(samples);
            }
        };
    }

    /** Lock-event columns up to this many events (about 40 MB) are reused from chunk to chunk. */
    private static final int SPARE_LOCK_EVENTS = 1 << 20;
    /** I/O-event columns up to this many events (37 bytes each: about 40 MB) are reused from chunk to chunk. */
    private static final int SPARE_IO_EVENTS = 1 << 20;

    /** Chunks up to this size are read into the heap; bigger ones are mapped. Tests lower it to map small chunks. */
    static long heapChunk = 64L << 20;

    /**
     * The chunk's bytes: copied into a heap buffer when it is of a usual size (reads from a heap array are plain
     * array loads in every JIT tier, where a mapped buffer goes through Unsafe, a native call until C2 compiles
     * the reader), else mapped, so a chunk of a gigabyte costs no heap.
     */
    private static ByteBuffer bytes(FileChannel ch, ChunkAt c, ByteBuffer spare) throws IOException {
        if (c.mapLen() > heapChunk) return ch.map(FileChannel.MapMode.READ_ONLY, c.pos(), c.mapLen());
        int len = (int) c.mapLen();
        ByteBuffer b = spare != null && spare.capacity() >= len ? spare : ByteBuffer.allocate(len);
        b.clear();
        b.limit(len);
        while (b.hasRemaining()) {
            if (ch.read(b, c.pos() + b.position()) < 0) break;
        }
        // Bytes past a short read are zero in a fresh buffer; a reused one must not show its last chunk there.
        if (b.hasRemaining()) java.util.Arrays.fill(b.array(), b.position(), len, (byte) 0);
        b.position(0);
        return b;
    }

    /** The chunk's reading, with its failure rethrown as it was thrown. */
    private static ChunkRead result(Future<ChunkRead> f) throws IOException {
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while reading");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) throw io;
            if (cause instanceof RuntimeException re) throw re;
            if (cause instanceof Error err) throw err;
            throw new IOException(cause);
        }
    }

    private static boolean startsWithMagic(FileChannel ch) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(4);
        ch.read(b, 0);
        b.flip();
        return ChunkReader.hasMagic(b, 0);
    }
}
