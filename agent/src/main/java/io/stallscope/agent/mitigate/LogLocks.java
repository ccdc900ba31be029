package io.stallscope.agent.mitigate;

import io.stallscope.agent.kafka.KafkaMembers;

import java.lang.reflect.Field;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The monitor a Log or UnifiedLog renames its directory under (its private field {@code lock}): Kafka moves
 * the directory, fsyncs the parent and only then updates dir(), all inside it.
 */
final class LogLocks {
    private static final Map<Class<?>, Optional<Field>> LOCK = new ConcurrentHashMap<>();

    private LogLocks() {
    }

    /** The log's lock, or null when its class has none (then nothing about its dir can be proven). */
    static Object of(Object log) {
        Optional<Field> field = LOCK.computeIfAbsent(log.getClass(), LogLocks::find);
        try {
            return field.isPresent() ? field.get().get(log) : null;
        } catch (IllegalAccessException e) {
            return null;
        }
    }

    private static Optional<Field> find(Class<?> type) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField(KafkaMembers.LOG_LOCK);
                f.setAccessible(true);
                return Optional.of(f);
            } catch (NoSuchFieldException e) {
                // the superclass, then
            } catch (RuntimeException e) {
                return Optional.empty(); // inaccessible: no proof
            }
        }
        return Optional.empty();
    }
}
