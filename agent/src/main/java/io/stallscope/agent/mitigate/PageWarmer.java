package io.stallscope.agent.mitigate;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * KAFKA-7504: the network thread sends a fetch's file slice with sendfile (or reads it for TLS); when
 * the pages are not in the page cache it blocks on the disk and every response queued on that thread
 * waits. Called on the request handler right after LogSegment.read, before the response is queued,
 * this reads exactly that slice into the page cache (transferTo /dev/null: sendfile, no copy to user
 * space), so the network thread finds it resident. Bounded: the active segment is skipped (just
 * written, resident), slices under a minimum are skipped, at most a maximum of bytes per read,
 * and a range warmed moments ago is not warmed again.
 */
final class PageWarmer {
    static final String MITIGATION = "prefetch";

    private final long minBytes;
    private final long maxBytes;
    private final MitigationMetrics metrics;
    private final FileChannel devNull;
    private final ActiveSegments active = new ActiveSegments();
    private final RecentlyWarmed recent = new RecentlyWarmed();

    PageWarmer(long minBytes, long maxBytes, MitigationMetrics metrics) throws IOException {
        this.minBytes = minBytes;
        this.maxBytes = maxBytes;
        this.metrics = metrics;
        this.devNull = FileChannel.open(Path.of("/dev/null"), StandardOpenOption.WRITE);
    }

    void warm(Object fetchDataInfo) throws ReflectiveOperationException {
        FileSlice slice = FileSlice.of(fetchDataInfo);
        if (slice == null || slice.size <= 0) {
            return;
        }
        if (slice.size < minBytes) {
            metrics.event(MITIGATION, "skipped_small");
            return;
        }
        if (active.isActive(slice.file)) {
            metrics.event(MITIGATION, "skipped_active");
            return;
        }
        long length = Math.min(slice.size, maxBytes);
        long start = System.nanoTime();
        if (recent.covers(slice.file, slice.start, slice.start + length, start)) {
            metrics.event(MITIGATION, "skipped_recent");
            return;
        }
        long done = 0;
        try {
            while (done < length) {
                long n = slice.channel.transferTo(slice.start + done, length - done, devNull);
                if (n <= 0) {
                    break; // end of file (the segment was truncated meanwhile)
                }
                done += n;
            }
        } catch (IOException e) {
            // the channel closed under us (segment deleted), or the disk failed: the network thread
            // will meet the same when it sends, exactly as without the mitigation
            metrics.event(MITIGATION, "io_error");
            return;
        }
        long now = System.nanoTime();
        recent.add(slice.file, slice.start, slice.start + done, now);
        metrics.prefetched(done, now - start);
        metrics.event(MITIGATION, length < slice.size ? "warmed_capped" : "warmed");
    }

    void close() {
        try {
            devNull.close();
        } catch (IOException ignored) {
            // /dev/null
        }
    }
}
