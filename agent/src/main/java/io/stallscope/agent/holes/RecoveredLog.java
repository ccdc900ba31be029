package io.stallscope.agent.holes;

import java.io.File;
import java.lang.reflect.Field;
import java.lang.reflect.Method;

/**
 * What the recovery hook reads of Kafka's objects, by name, the same in every version (checked against each version's
 * classes in RecoveredLogTest): the segment's baseOffset(), readNextOffset() and log().file(); the log's
 * config.compact and its log start offset (logStartOffset on 2.8's Log, logStartOffsetCheckpoint on the loader or
 * 3.0-3.2's LoadLogParams). Whatever is missing falls back to the log dir's checkpoint files.
 */
final class RecoveredLog {
    private RecoveredLog() {
    }

    static long baseOffset(Object segment) throws ReflectiveOperationException {
        return (Long) call(segment, "baseOffset");
    }

    /** Kafka's own answer: the offset after the segment's last batch (reads from its last index entry on). */
    static long nextOffset(Object segment) throws ReflectiveOperationException {
        return (Long) call(segment, "readNextOffset");
    }

    static File file(Object segment) throws ReflectiveOperationException {
        return (File) call(call(segment, "log"), "file");
    }

    /** The object holding the log's config: the instance (2.8's Log, the 3.3+ LogLoader) or 3.0-3.2's LoadLogParams. */
    static Object holder(Object self, Object arg1) {
        if (self != null && field(self.getClass(), "config") != null) {
            return self;
        }
        return arg1 != null && field(arg1.getClass(), "config") != null ? arg1 : null;
    }

    /** Boolean.TRUE/FALSE from the log's config, null if it cannot be read. */
    static Boolean compacted(Object holder) throws IllegalAccessException {
        return compactOf(value(holder, "config"));
    }

    /** A LogConfig's compact (cleanup.policy holds "compact"): a Scala val up to 3.4, a public final field from 3.5. */
    static Boolean compactOf(Object logConfig) throws IllegalAccessException {
        Object compact = logConfig == null ? null : value(logConfig, "compact");
        return compact instanceof Boolean ? (Boolean) compact : null;
    }

    /** -1 if it cannot be read. */
    static long logStartOffset(Object holder) throws IllegalAccessException {
        for (String name : new String[] {"logStartOffsetCheckpoint", "logStartOffset"}) {
            Object v = value(holder, name);
            if (v instanceof Long) {
                return (Long) v;
            }
        }
        return -1;
    }

    private static Object call(Object target, String name) throws ReflectiveOperationException {
        Method m = target.getClass().getMethod(name);
        m.setAccessible(true);
        return m.invoke(target);
    }

    private static Object value(Object target, String name) throws IllegalAccessException {
        if (target == null) {
            return null;
        }
        Field f = field(target.getClass(), name);
        if (f == null) {
            return null;
        }
        f.setAccessible(true);
        return f.get(target);
    }

    private static Field field(Class<?> type, String name) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            try {
                return c.getDeclaredField(name);
            } catch (NoSuchFieldException next) {
                // up the hierarchy
            }
        }
        return null;
    }
}
