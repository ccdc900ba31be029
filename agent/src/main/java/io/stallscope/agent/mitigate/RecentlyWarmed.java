package io.stallscope.agent.mitigate;

import java.io.File;

/**
 * The last few ranges warmed, so that consumers and followers fetching the same range one after another
 * do not each warm it again. Small and lossy by design: a miss only costs one more (cheap, resident)
 * warm-up. Entries expire, because the page cache may drop the pages.
 */
final class RecentlyWarmed {
    private static final int SLOTS = 64;
    private static final long TTL_NANOS = 5_000_000_000L;

    private static final class Range {
        final File file;
        final long start;
        final long end;
        final long at;

        Range(File file, long start, long end, long at) {
            this.file = file;
            this.start = start;
            this.end = end;
            this.at = at;
        }
    }

    private final Range[] ranges = new Range[SLOTS];
    private int next;

    synchronized boolean covers(File file, long start, long end, long now) {
        for (Range r : ranges) {
            if (r != null && now - r.at < TTL_NANOS && r.start <= start && r.end >= end && r.file.equals(file)) {
                return true;
            }
        }
        return false;
    }

    synchronized void add(File file, long start, long end, long now) {
        ranges[next] = new Range(file, start, end, now);
        next = (next + 1) % SLOTS;
    }
}
