package io.stallscope.agent.model;

import io.stallscope.agent.kafka.KafkaMembers;

import java.io.File;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Path;

/**
 * Finds the file behind what an op worked on: a File or Path as such, a FileChannelImpl by its
 * {@code path} field, and Kafka's objects by their accessors (FileRecords.file(), LogSegment.log(),
 * AbstractIndex.file(), UnifiedLog.dir(), ProducerStateManager.logDir()), and a remote segment's metadata by
 * {@link RemotePaths}. Only called when a report
 * needs the partition (a slow op, a JFR event, topic labels), never on every call.
 * The accessor found per class is cached.
 */
public final class SubjectPaths {
    private static final String[] ACCESSORS = KafkaMembers.pathAccessors();
    private static final int MAX_DEPTH = 3;

    private static final ClassValue<Accessor> ACCESSOR = new ClassValue<Accessor>() {
        @Override
        protected Accessor computeValue(Class<?> type) {
            return Accessor.find(type);
        }
    };

    private SubjectPaths() {
    }

    /** Returns the path, or null when none can be found. Never throws. */
    public static String pathOf(Object subject) {
        if (RemotePaths.isRemote(subject)) {
            return RemotePaths.pathOf(subject);
        }
        Object current = subject;
        for (int depth = 0; depth <= MAX_DEPTH && current != null; depth++) {
            if (current instanceof String) {
                return (String) current;
            }
            if (current instanceof File) {
                return ((File) current).getPath();
            }
            if (current instanceof Path) {
                return current.toString();
            }
            try {
                current = ACCESSOR.get(current.getClass()).apply(current);
            } catch (Throwable t) {
                return null;
            }
        }
        return null;
    }

    public static TopicPartition topicPartitionOf(Object subject) {
        return LogPaths.topicPartition(pathOf(subject));
    }

    /** One way to step from an object to its file, or to the object that knows it. */
    private static final class Accessor {
        private static final Accessor NONE = new Accessor(null, null);
        private final Method method;
        private final Field field;

        private Accessor(Method method, Field field) {
            this.method = method;
            this.field = field;
        }

        Object apply(Object target) throws ReflectiveOperationException {
            if (method != null) {
                return method.invoke(target);
            }
            if (field != null) {
                return field.get(target);
            }
            return null;
        }

        static Accessor find(Class<?> type) {
            for (String name : ACCESSORS) {
                for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
                    try {
                        Method m = c.getDeclaredMethod(name);
                        if (!Modifier.isStatic(m.getModifiers()) && m.getReturnType() != void.class
                            && !m.getReturnType().isPrimitive() && trySetAccessible(m)) {
                            return new Accessor(m, null);
                        }
                    } catch (NoSuchMethodException ignored) {
                        // try the field, then the superclass
                    }
                    try {
                        Field f = c.getDeclaredField(name);
                        if (!Modifier.isStatic(f.getModifiers()) && !f.getType().isPrimitive() && trySetAccessible(f)) {
                            return new Accessor(null, f);
                        }
                    } catch (NoSuchFieldException ignored) {
                        // next
                    }
                }
            }
            return NONE;
        }

        private static boolean trySetAccessible(java.lang.reflect.AccessibleObject o) {
            try {
                return o.trySetAccessible();
            } catch (RuntimeException e) {
                return false;
            }
        }
    }
}
