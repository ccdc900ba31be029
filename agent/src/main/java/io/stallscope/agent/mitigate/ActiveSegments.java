package io.stallscope.agent.mitigate;

import java.io.File;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which segment of a partition is the active one (the newest, being appended to: its pages were just
 * written and are resident). Known from the segment files' base offsets in a directory listing. The
 * listing goes stale with every roll, so it is taken again when a read meets a segment newer than the
 * listing knew (a reader moving forward through rolled segments) and, at most once a second per
 * partition, when a read meets the segment the listing called newest (it may have rolled since). A
 * listing taken once and then only moved forward by fetches called every rolled segment "active" to a
 * follower or consumer that had read the tail before and then caught up from behind: none was warmed.
 */
final class ActiveSegments {
    private static final int MAX_DIRS = 100_000;
    private static final long RELIST_NANOS = 1_000_000_000L;
    private final Map<File, Listing> newest = new ConcurrentHashMap<>();

    /** The newest base offset in a directory and when that was listed. */
    private static final class Listing {
        final long base;
        final long at;

        Listing(long base, long at) {
            this.base = base;
            this.at = at;
        }
    }

    /** Whether the segment file is the newest of its directory. */
    boolean isActive(File segment) {
        return isActive(segment, System.nanoTime());
    }

    boolean isActive(File segment, long now) {
        long base = baseOffset(segment);
        File dir = segment.getParentFile();
        if (base < 0 || dir == null) {
            return false;
        }
        Listing known = newest.get(dir);
        if (known == null || base > known.base || (base == known.base && now - known.at > RELIST_NANOS)) {
            if (known == null && newest.size() >= MAX_DIRS) {
                newest.clear(); // deleted partitions leave entries behind: start over
            }
            known = new Listing(listNewest(dir), now);
            newest.put(dir, known);
        }
        return base >= known.base; // newer than the fresh listing: created just after it, so the newest
    }

    private static long listNewest(File dir) {
        long newest = -1;
        String[] names = dir.list();
        if (names != null) {
            for (String name : names) {
                if (name.endsWith(".log")) {
                    newest = Math.max(newest, baseOffset(new File(name)));
                }
            }
        }
        return newest;
    }

    /** 00000000000000012345.log -> 12345, or -1. */
    static long baseOffset(File segment) {
        String name = segment.getName();
        if (!name.endsWith(".log") || name.length() != 24) {
            return -1;
        }
        try {
            return Long.parseLong(name.substring(0, 20));
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
