package io.stallscope.agent.mitigate;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;

/**
 * Unmaps a mapping at once (sun.misc.Unsafe.invokeCleaner, jdk.unsupported, JDK 9+) instead of when the
 * GC gets to it: Kafka already holds many mappings (its indexes) against vm.max_map_count, so a warm-up
 * must not leave any behind. Without it the prefetch does not map at all.
 */
final class Unmapper {
    private final Object unsafe;
    private final Method invokeCleaner;

    private Unmapper(Object unsafe, Method invokeCleaner) {
        this.unsafe = unsafe;
        this.invokeCleaner = invokeCleaner;
    }

    /** The JDK's unmapper, or null with the reason in why[0]. */
    static Unmapper find(String[] why) {
        try {
            Class<?> type = Class.forName("sun.misc.Unsafe");
            Field field = type.getDeclaredField("theUnsafe");
            field.setAccessible(true);
            return new Unmapper(field.get(null), type.getMethod("invokeCleaner", ByteBuffer.class));
        } catch (ReflectiveOperationException | RuntimeException e) {
            why[0] = "no sun.misc.Unsafe.invokeCleaner (" + e + ")";
            return null;
        }
    }

    void unmap(MappedByteBuffer buffer) throws ReflectiveOperationException {
        invokeCleaner.invoke(unsafe, buffer);
    }
}
