package io.stallscope.agent.mitigate;

import java.lang.reflect.Field;
import java.nio.MappedByteBuffer;

/**
 * An offset or time index's own mapping: AbstractIndex's {@code mmap} field (kafka.log on 2.8-3.x, the storage
 * module's from 3.5; the same name and type in every version, by javap). Read, never touched: its address goes to
 * madvise and mincore only, so a lookup's page fault is never taken here.
 */
final class IndexMaps {
    private static final ClassValue<Field> FIELDS = new ClassValue<Field>() {
        @Override
        protected Field computeValue(Class<?> type) {
            for (Class<?> c = type; c != null; c = c.getSuperclass()) {
                try {
                    Field f = c.getDeclaredField("mmap");
                    if (f.getType() == MappedByteBuffer.class) {
                        f.setAccessible(true);
                        return f;
                    }
                } catch (NoSuchFieldException e) {
                    // declared higher up
                } catch (RuntimeException e) {
                    return null; // not ours to open (a module): nothing is warmed, and nothing fails on every lookup
                }
            }
            return null;
        }
    };

    private IndexMaps() {
    }

    /** The index's current mapping, or null when its class has none (then nothing is warmed). */
    static MappedByteBuffer of(Object index) throws IllegalAccessException {
        Field f = FIELDS.get(index.getClass());
        return f == null ? null : (MappedByteBuffer) f.get(index);
    }
}
