package io.stallscope.agent.mitigate;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.Buffer;
import java.nio.MappedByteBuffer;
import java.util.Map;
import java.util.Set;

/**
 * madvise(MADV_WILLNEED) and mincore on part of a mapping, through the JDK's own natives behind
 * MappedByteBuffer.load()/isLoaded() (java.nio.MappedMemoryUtils, JDK 14+), java.nio opened to the agent.
 * Why not load(): after its madvise it reads one byte per page in Java code, and a thread in Java code
 * waiting for a page fault from a slow disk cannot stop at a safepoint, so every safepoint of the JVM (the
 * once-a-second cleanup, each GC) waits for it: 140-280 ms of time to safepoint on LINE's XFS at 8 MiB/s
 * (docs/lab/prefetch-outside-locks.md). A native call does not hold a safepoint back.
 */
final class PageAdvice {
    private final Method willNeed;
    private final Method resident;
    private final Field address;
    private final int pageSize;

    private PageAdvice(Method willNeed, Method resident, Field address, int pageSize) {
        this.willNeed = willNeed;
        this.resident = resident;
        this.address = address;
        this.pageSize = pageSize;
    }

    /** The JDK's natives, or null with the reason in why[0]. */
    static PageAdvice find(Instrumentation inst, String[] why) {
        try {
            Module agent = PageAdvice.class.getModule();
            if (inst != null && !Object.class.getModule().isOpen("java.nio", agent)) {
                inst.redefineModule(Object.class.getModule(), Set.of(), Map.of(), Map.of("java.nio", Set.of(agent)),
                    Set.of(), Map.of());
            }
            Class<?> utils = Class.forName("java.nio.MappedMemoryUtils");
            Method willNeed = utils.getDeclaredMethod("load0", long.class, long.class);
            Method resident = utils.getDeclaredMethod("isLoaded0", long.class, long.class, long.class);
            Field address = Buffer.class.getDeclaredField("address");
            willNeed.setAccessible(true);
            resident.setAccessible(true);
            address.setAccessible(true);
            Field unsafeField = Class.forName("sun.misc.Unsafe").getDeclaredField("theUnsafe");
            unsafeField.setAccessible(true);
            Object unsafe = unsafeField.get(null);
            int pageSize = (Integer) unsafe.getClass().getMethod("pageSize").invoke(unsafe);
            return new PageAdvice(willNeed, resident, address, pageSize);
        } catch (ReflectiveOperationException | RuntimeException e) {
            why[0] = "no madvise/mincore of this JDK (" + e + ")";
            return null;
        }
    }

    /** Asks the kernel to read [offset, offset + length) of the mapping in, without waiting for it. */
    void willNeed(MappedByteBuffer map, long offset, long length) throws ReflectiveOperationException {
        long[] range = pages(map, offset, length);
        call(willNeed, range[0], range[1]);
    }

    /** Whether every page of [offset, offset + length) of the mapping is in the page cache (mincore). */
    boolean resident(MappedByteBuffer map, long offset, long length) throws ReflectiveOperationException {
        long[] range = pages(map, offset, length);
        return (Boolean) call(resident, range[0], range[1], (range[1] + pageSize - 1) / pageSize);
    }

    /** The page-aligned start address and length covering the range. */
    private long[] pages(MappedByteBuffer map, long offset, long length) throws IllegalAccessException {
        long start = address.getLong(map) + offset;
        long aligned = start & -(long) pageSize;
        return new long[] {aligned, length + (start - aligned)};
    }

    private static Object call(Method m, Object... args) throws ReflectiveOperationException {
        try {
            return m.invoke(null, args);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException) {
                throw (RuntimeException) e.getCause();
            }
            throw e;
        }
    }
}
