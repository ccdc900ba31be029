package io.stallscope.agent.mitigate;

import java.io.File;
import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Brings a file range into the page cache without the inode lock. A page fault or madvise takes XFS's
 * mapping lock, not the IOLOCK that sendfile and read(2) hold while they wait for the disk, so appends to
 * the same file (the active segment) go on meanwhile. With {@link PageAdvice}: map the range read-only,
 * one mincore, madvise(WILLNEED) per chunk, then sleep and ask mincore again until it is resident or the
 * deadline passes; nothing is touched from Java, so the wait never holds a safepoint back. Without it (a
 * JDK before 14): per chunk, map, load() (madvise, then a read of one byte per page), unmap. At most one
 * mapping per calling thread, unmapped before it returns.
 *
 * <p>Never through Kafka's channel, of which only isOpen() (a volatile read) is asked: its size() and map()
 * take its positionLock, which Kafka's append holds for its write(2) (and map() failing does System.gc()
 * and sleeps 100 ms under it); and an interrupted thread entering either closes it, so that Kafka's next
 * append fails and takes the log dir offline. A channel of our own, opened read-only by the segment's
 * path, costs an open and a close. No mapping either while the process is short of vm.max_map_count
 * ({@link MapHeadroom}): Kafka's own index mappings come first.
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
    /** The segment file was renamed or deleted since the fetch read it (retention, compaction, a log moved). */
    static final String GONE = "gone";
    static final String MAP_HEADROOM = "map_headroom";

    /** How often a warm-up waiting for the disk asks mincore again: 1 ms is 8 KiB at 8 MiB/s. */
    static final long POLL_NANOS = 1_000_000;

    private final Unmapper unmapper;
    private final PageAdvice advice;
    private final MapHeadroom headroom;
    private final AtomicInteger mapped = new AtomicInteger();

    SliceWarmer(Unmapper unmapper, PageAdvice advice) {
        this(unmapper, advice, new MapHeadroom(MapHeadroom.MIN_HEADROOM));
    }

    SliceWarmer(Unmapper unmapper, PageAdvice advice, MapHeadroom headroom) {
        this.unmapper = unmapper;
        this.advice = advice;
        this.headroom = headroom;
    }

    /** Warms [position, position + length) of the slice's segment file, stopping once past the deadline. */
    Outcome warm(FileSlice slice, long position, long length, long deadlineNanos) {
        if (!slice.channel.isOpen()) {
            return new Outcome(0, "closed"); // the segment was deleted or the log closed meanwhile
        }
        if (Thread.currentThread().isInterrupted()) {
            return new Outcome(0, "interrupted"); // our channel's first call would only close it again
        }
        if (!headroom.enough()) {
            return new Outcome(0, MAP_HEADROOM);
        }
        File file = slice.file;
        if (file == null) {
            return new Outcome(0, GONE);
        }
        try (FileChannel own = FileChannel.open(file.toPath(), StandardOpenOption.READ)) {
            return warm(own, position, length, deadlineNanos);
        } catch (NoSuchFileException e) {
            return new Outcome(0, GONE);
        } catch (IOException e) {
            return new Outcome(0, "io_error");
        }
    }

    private Outcome warm(FileChannel channel, long position, long length, long deadlineNanos) {
        try {
            long end = Math.min(position + length, channel.size());
            if (end <= position) {
                return new Outcome(0, "truncated");
            }
            String shorter = end < position + length ? "truncated" : null;
            return advice == null ? loadChunks(channel, position, end, deadlineNanos, shorter)
                : advise(channel, position, end - position, deadlineNanos, shorter);
        } catch (ClosedByInterruptException e) {
            return new Outcome(0, "interrupted"); // it closed our channel, not Kafka's
        } catch (IOException e) {
            return new Outcome(0, "io_error");
        }
    }

    private Outcome advise(FileChannel channel, long position, long length, long deadlineNanos, String shorter)
        throws IOException {
        MappedByteBuffer map = map(channel, position, length);
        if (map == null) {
            return new Outcome(0, "map_failed");
        }
        try {
            if (advice.resident(map, 0, length)) {
                return new Outcome(length, shorter); // one mincore: resident pages cost nearly nothing
            }
            for (long off = 0; off < length; off += CHUNK) {
                // per chunk: the kernel reads at most its read-ahead window per WILLNEED
                advice.willNeed(map, off, Math.min(CHUNK, length - off));
            }
            long done = 0; // the resident prefix
            while (true) {
                while (done < length && advice.resident(map, done, Math.min(CHUNK, length - done))) {
                    done += Math.min(CHUNK, length - done);
                }
                if (done >= length) {
                    return new Outcome(length, shorter);
                }
                if (System.nanoTime() - deadlineNanos > 0) {
                    return new Outcome(done, TIMED_OUT); // what is in flight goes on reading for the network thread
                }
                LockSupport.parkNanos(POLL_NANOS);
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            return new Outcome(0, "advice_failed");
        } finally {
            unmap(map);
        }
    }

    private Outcome loadChunks(FileChannel channel, long position, long end, long deadlineNanos, String shorter)
        throws IOException {
        long done = 0;
        while (position + done < end) {
            if (done > 0 && System.nanoTime() - deadlineNanos > 0) {
                return new Outcome(done, TIMED_OUT);
            }
            long n = Math.min(CHUNK, end - position - done);
            String failed;
            try {
                failed = loadChunk(channel, position + done, n);
            } catch (ClosedByInterruptException e) {
                return new Outcome(done, "interrupted");
            } catch (IOException e) {
                return new Outcome(done, "io_error");
            }
            if (failed != null) {
                return new Outcome(done, failed);
            }
            done += n;
        }
        return new Outcome(done, shorter);
    }

    /** A read-only mapping, counted; null when the kernel refuses one (e.g. vm.max_map_count reached). */
    private MappedByteBuffer map(FileChannel channel, long position, long length) throws IOException {
        MappedByteBuffer map;
        try {
            map = channel.map(FileChannel.MapMode.READ_ONLY, position, length);
        } catch (ClosedChannelException e) {
            throw e;
        } catch (IOException | RuntimeException | OutOfMemoryError e) {
            return null;
        }
        mapped.incrementAndGet();
        return map;
    }

    private void unmap(MappedByteBuffer map) {
        try {
            unmapper.unmap(map);
        } catch (ReflectiveOperationException | RuntimeException e) {
            // cannot happen for a fresh mapping of a direct buffer; the GC unmaps it then
        }
        mapped.decrementAndGet();
    }

    private String loadChunk(FileChannel channel, long position, long length) throws IOException {
        MappedByteBuffer map = map(channel, position, length);
        if (map == null) {
            return "map_failed";
        }
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
            unmap(map);
        }
    }

    /** Mappings this warmer holds right now (0 between calls). */
    int mapped() {
        return mapped.get();
    }
}
