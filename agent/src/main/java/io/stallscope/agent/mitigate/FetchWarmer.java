package io.stallscope.agent.mitigate;

import java.util.List;

/**
 * KAFKA-7504 and its XFS twin: the network thread sends a fetch's file slices with sendfile (or reads them
 * for TLS); cold pages block it, every response queued on it, and on XFS every write(2) to the same file
 * (sendfile holds the inode lock shared while it waits). Called on the request handler once the fetch has
 * read all its partitions and released their locks, before the response is queued, this brings each
 * slice into the page cache with {@link SliceWarmer} (no inode lock), rolled and active segments alike.
 * Bounded per partition and per fetch in bytes and per fetch in time; past the time bound the handler
 * moves on and the network thread reads the rest, as without the mitigation.
 */
final class FetchWarmer {
    static final String MITIGATION = "prefetch";

    private final long minBytes;
    private final long maxBytes;
    private final long maxFetchBytes;
    private final long maxWaitNanos;
    private final SliceWarmer slices;
    private final PrefetchMetrics metrics;
    private final AheadWarmer ahead;

    FetchWarmer(long minBytes, long maxBytes, long maxFetchBytes, long maxWaitNanos, SliceWarmer slices,
                PrefetchMetrics metrics, AheadWarmer ahead) {
        this.ahead = ahead;
        this.minBytes = minBytes;
        this.maxBytes = maxBytes;
        this.maxFetchBytes = maxFetchBytes;
        this.maxWaitNanos = maxWaitNanos;
        this.slices = slices;
        this.metrics = metrics;
    }

    /** Warms the slices of one fetch, in its order; returns the bytes brought in. */
    long warm(List<FileSlice> fetch) {
        long start = System.nanoTime();
        long deadline = start + maxWaitNanos;
        long total = 0;
        boolean capped = false;
        boolean timedOut = false;
        for (FileSlice slice : fetch) {
            if (slice.size <= 0) {
                continue;
            }
            if (slice.size < minBytes) {
                metrics.event("skipped_small");
                continue;
            }
            if (ahead != null) {
                ahead.after(slice);
            }
            if (total >= maxFetchBytes) {
                capped = true;
                break;
            }
            if (System.nanoTime() - deadline > 0) {
                timedOut = true;
                break;
            }
            long length = Math.min(Math.min(slice.size, maxBytes), maxFetchBytes - total);
            capped |= length < slice.size;
            SliceWarmer.Outcome o = slices.warm(slice, slice.start, length, deadline);
            total += o.bytes;
            if (SliceWarmer.TIMED_OUT.equals(o.stopped)) {
                timedOut = true;
                break;
            }
            if (o.stopped != null) {
                metrics.event("skipped_" + o.stopped);
            }
        }
        if (total > 0) {
            metrics.warmed(total, System.nanoTime() - start);
        }
        if (capped) {
            metrics.event("capped");
        }
        if (timedOut) {
            metrics.event(SliceWarmer.TIMED_OUT);
        }
        return total;
    }

    /** Stops the read-ahead thread, if any. */
    void close() {
        if (ahead != null) {
            ahead.close();
        }
    }

    /** Mappings held right now by warm-ups in flight. */
    int mapped() {
        return slices.mapped();
    }
}
