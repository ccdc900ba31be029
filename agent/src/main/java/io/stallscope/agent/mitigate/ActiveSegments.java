package io.stallscope.agent.mitigate;

import java.io.File;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which segment of a partition is the active one (the newest, being appended to: its pages were just
 * written and are resident). Known from the segment files' base offsets: listed once per directory,
 * then moved forward whenever a fetch reads a newer segment (after a roll).
 */
final class ActiveSegments {
    private static final int MAX_DIRS = 100_000;
    private final Map<File, Long> newestBase = new ConcurrentHashMap<>();

    /** Whether the segment file is the newest of its directory. */
    boolean isActive(File segment) {
        long base = baseOffset(segment);
        File dir = segment.getParentFile();
        if (base < 0 || dir == null) {
            return false;
        }
        Long newest = newestBase.get(dir);
        if (newest == null) {
            if (newestBase.size() >= MAX_DIRS) {
                newestBase.clear(); // deleted partitions leave entries behind: start over
            }
            newest = listNewest(dir);
            newestBase.put(dir, newest);
        }
        if (base > newest) {
            newestBase.put(dir, base); // rolled since: this one is the newest now
            return true;
        }
        return base == newest;
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
