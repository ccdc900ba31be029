package io.stallscope.agent.report;

import io.stallscope.agent.kafka.KafkaMembers;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Tells whether a segment flush had nothing to flush: the segment's size is what it was at its
 * previous flush (KAFKA-132's pattern, idle logs fsynced again and again). Flushes are rare (the
 * scheduler's flush-log job, roll, shutdown), so a synchronized weak map is cheap enough.
 */
final class NoopFlushDetector {
    /**
     * The segment's public size(), looked up once per class (LogSegment is one class per Kafka, so once)
     * and bound as a handle that returns a long whether Kafka declares int or long; null when the class
     * has no such method.
     */
    private static final ClassValue<MethodHandle> SIZE = new ClassValue<MethodHandle>() {
        @Override
        protected MethodHandle computeValue(Class<?> type) {
            try {
                Method m = type.getMethod(KafkaMembers.SEGMENT_SIZE);
                if (m.getReturnType() != int.class && m.getReturnType() != long.class
                    || Modifier.isStatic(m.getModifiers())) {
                    return null;
                }
                return MethodHandles.publicLookup().unreflect(m)
                    .asType(MethodType.methodType(long.class, Object.class));
            } catch (NoSuchMethodException | IllegalAccessException | SecurityException e) {
                return null;
            }
        }
    };

    private final Map<Object, Long> sizeAtLastFlush = new WeakHashMap<>();

    boolean isNoop(Object segment) {
        if (segment == null) {
            return false;
        }
        MethodHandle size = SIZE.get(segment.getClass());
        if (size == null) {
            return false;
        }
        long now;
        try {
            now = (long) size.invokeExact(segment);
        } catch (Throwable e) {
            // a flush is never failed by the agent: an unreadable size counts as a real flush
            return false;
        }
        Long before;
        synchronized (sizeAtLastFlush) {
            before = sizeAtLastFlush.put(segment, now);
        }
        return now == 0 || (before != null && before == now);
    }
}
