package io.stallscope.agent.report;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Tells whether a segment flush had nothing to flush: the segment's size is what it was at its
 * previous flush (KAFKA-132's pattern, idle logs fsynced again and again). Flushes are rare (the
 * scheduler's flush-log job, roll, shutdown), so a synchronized weak map is cheap enough.
 */
final class NoopFlushDetector {
    private static final ClassValue<Method> SIZE = new ClassValue<Method>() {
        @Override
        protected Method computeValue(Class<?> type) {
            try {
                Method m = type.getMethod("size");
                return m.getReturnType() == int.class || m.getReturnType() == long.class ? m : null;
            } catch (NoSuchMethodException e) {
                return null;
            }
        }
    };

    private final Map<Object, Long> sizeAtLastFlush = new WeakHashMap<>();

    boolean isNoop(Object segment) {
        if (segment == null) {
            return false;
        }
        Method size = SIZE.get(segment.getClass());
        if (size == null) {
            return false;
        }
        long now;
        try {
            now = ((Number) size.invoke(segment)).longValue();
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
        Long before;
        synchronized (sizeAtLastFlush) {
            before = sizeAtLastFlush.put(segment, now);
        }
        return now == 0 || (before != null && before == now);
    }
}
