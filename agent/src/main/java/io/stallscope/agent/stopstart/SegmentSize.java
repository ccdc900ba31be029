package io.stallscope.agent.stopstart;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** A LogSegment's size in bytes through its public size() (every version 2.8-4.4), for the bytes a stop flushed. */
final class SegmentSize {
    private static final Map<Class<?>, Method> SIZE = new ConcurrentHashMap<>();

    private SegmentSize() {
    }

    /** The segment's size, or 0 when it cannot be read (the count goes on without it). */
    static long of(Object segment) {
        if (segment == null) {
            return 0;
        }
        try {
            Method m = SIZE.computeIfAbsent(segment.getClass(), c -> {
                try {
                    return c.getMethod("size");
                } catch (NoSuchMethodException e) {
                    return null;
                }
            });
            Object size = m == null ? null : m.invoke(segment);
            return size instanceof Number ? ((Number) size).longValue() : 0;
        } catch (Throwable t) {
            return 0;
        }
    }
}
