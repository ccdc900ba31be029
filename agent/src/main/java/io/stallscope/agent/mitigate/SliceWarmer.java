package io.stallscope.agent.mitigate;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Brings a file range into the page cache without the inode lock: map a chunk read-only, unless mincore
 * says it is all resident load() it (madvise WILLNEED, then a read of one byte per page), unmap it, next chunk. A page fault takes XFS's
 * mapping lock, not the IOLOCK that sendfile and read(2) hold while they wait for the disk, so appends to
 * the same file (the active segment) go on meanwhile. At most one mapping per calling thread, unmapped
 * before the next; the deadline is checked between chunks.
 */
final class SliceWarmer {
    /** 128 KiB: 16 ms at 8 MiB/s, so the time bound is overrun by little. */
    static final int CHUNK = 128 * 1024;

    /** What a warm-up did: bytes brought in, and why it stopped early (null when it did not). */
    static final class Outcome {
        final long bytes;
        final String stopped;

        Outcome(long bytes, String stopped) {
            this.bytes = bytes;
            this.stopped = stopped;
        }
    }

    static final String TIMED_OUT = "timed_out";

    private final Unmapper unmapper;
    private final AtomicInteger mapped = new AtomicInteger();

    SliceWarmer(Unmapper unmapper) {
        this.unmapper = unmapper;
    }

    /** Warms [position, position + length) of the channel, stopping between chunks once past the deadline. */
    Outcome warm(FileChannel channel, long position, long length, long deadlineNanos) {
        long done = 0;
        try {
            long end = Math.min(position + length, channel.size());
            if (end <= position) {
                return new Outcome(0, "truncated");
            }
            while (position + done < end) {
                if (done > 0 && System.nanoTime() - deadlineNanos > 0) {
                    return new Outcome(done, TIMED_OUT);
                }
                long n = Math.min(CHUNK, end - position - done);
                String failed = loadChunk(channel, position + done, n);
                if (failed != null) {
                    return new Outcome(done, failed);
                }
                done += n;
            }
            return new Outcome(done, end < position + length ? "truncated" : null);
        } catch (ClosedChannelException e) {
            return new Outcome(done, "closed"); // the segment was deleted or the log closed meanwhile
        } catch (IOException e) {
            return new Outcome(done, "io_error");
        }
    }

    private String loadChunk(FileChannel channel, long position, long length) throws IOException {
        MappedByteBuffer map;
        try {
            map = channel.map(FileChannel.MapMode.READ_ONLY, position, length);
        } catch (ClosedChannelException e) {
            throw e;
        } catch (IOException | RuntimeException | OutOfMemoryError e) {
            return "map_failed"; // e.g. vm.max_map_count reached
        }
        mapped.incrementAndGet();
        try {
            // a resident chunk: one mincore instead of a fault per page, which cost 1.5 ms per resident MiB
            // here (WarmResidentBenchmark, docs/lab/prefetch-outside-locks.md) against 20 us for sendfile
            if (!map.isLoaded()) {
                map.load();
            }
            return null;
        } catch (InternalError e) {
            // a page past the end of a file truncated after the map: SIGBUS, which the JVM turns into this
            return "truncated";
        } finally {
            try {
                unmapper.unmap(map);
                mapped.decrementAndGet();
            } catch (ReflectiveOperationException | RuntimeException e) {
                // cannot happen for a fresh mapping of a direct buffer; the GC unmaps it then
                mapped.decrementAndGet();
            }
        }
    }

    /** Mappings this warmer holds right now (0 between calls). */
    int mapped() {
        return mapped.get();
    }
}
