package io.stallscope.analyzer.analysis.stacks;

import io.stallscope.analyzer.model.Frames;
import io.stallscope.analyzer.model.Stacks;

import java.util.Arrays;

/**
 * What a sampled stack says about a thread during a safepoint's sync: only a thread still in Java code can hold a
 * safepoint up (one blocked, parked or in a system call is already safe). Kafka's offset and time indexes are
 * memory-mapped, so the way a Kafka thread holds one up for long is a page fault in an index read: the CPU is in
 * the kernel, but to the JVM the thread is running Java code and will not stop until the page is read.
 * <ul>
 *   <li>{@link Doing#PAGE_FAULT}: kernel page-fault frames ({@code asm_exc_page_fault}, {@code handle_mm_fault},
 *       {@code filemap_fault}...) on top of Java frames: a profiler with kernel stacks (async-profiler as root or
 *       with perf_event_paranoid at most 1) shows these;</li>
 *   <li>{@link Doing#INDEX_READ}: the top Java frames are an index's read ({@code OffsetIndex}, {@code TimeIndex},
 *       {@code AbstractIndex}), with at most the buffer's get methods above it: without kernel frames, that is all a
 *       sample can show of the fault;</li>
 *   <li>{@link Doing#RUNNING}: a Java frame on top (compiled or interpreted code, not a native method);</li>
 *   <li>{@link Doing#SAFE}: anything else: stopped at the safepoint, blocked, in native code, a VM thread.</li>
 * </ul>
 * Cached per stack id: a window's samples repeat a few stacks.
 */
public final class SafepointStacks {
    /** What a thread whose stack this is was doing, for a safepoint's sync. */
    public enum Doing { SAFE, RUNNING, INDEX_READ, PAGE_FAULT }

    /** How far from the top a page fault's kernel frames or the index read may sit. */
    private static final int DEPTH = 32;

    private final Frames frames;
    private final Stacks stacks;
    private Doing[] doing = new Doing[0];
    /** The frame that names what the thread did: the index method, else the top Java frame (-1: none). */
    private int[] frame = new int[0];

    public SafepointStacks(Frames frames, Stacks stacks) {
        this.frames = frames;
        this.stacks = stacks;
    }

    public Doing doing(int stack) {
        classify(stack);
        return doing[stack];
    }

    /** The frame naming what the thread did ("kafka.log.OffsetIndex.lookup"), or -1 when it was safe. */
    public int frame(int stack) {
        classify(stack);
        return frame[stack];
    }

    private void classify(int stack) {
        if (stack >= doing.length) {
            int n = Math.max(stack + 1, stacks.size());
            doing = Arrays.copyOf(doing, n);
            frame = Arrays.copyOf(frame, n);
        }
        if (doing[stack] != null) return;
        int[] f = stacks.frames(stack);
        int top = firstJava(f);
        boolean fault = false;
        for (int i = 0; i < top; i++) fault |= isPageFault(frames.name(f[i]));
        int index = top < 0 ? -1 : indexRead(f, top);
        if (top < 0) {
            doing[stack] = Doing.SAFE;
            frame[stack] = -1;
        } else if (fault) {
            doing[stack] = Doing.PAGE_FAULT;
            frame[stack] = index >= 0 ? f[index] : f[top];
        } else if (index >= 0) {
            doing[stack] = Doing.INDEX_READ;
            frame[stack] = f[index];
        } else if (top == 0) {
            doing[stack] = Doing.RUNNING;
            frame[stack] = f[top];
        } else {
            // Native frames above the Java ones, and none of them a fault: a native method, the VM (stopped at the
            // safepoint, or a runtime call that checks for one), a system call. Safe, or too short to hold one up.
            doing[stack] = Doing.SAFE;
            frame[stack] = -1;
        }
    }

    /** Index of the topmost Java frame within {@link #DEPTH}, or -1. */
    private int firstJava(int[] f) {
        for (int i = 0; i < f.length && i < DEPTH; i++) {
            if (frames.isJava(f[i])) return i;
        }
        return -1;
    }

    /**
     * The index method's frame when the Java frames from {@code top} down are an index's read: the buffer's and the
     * memory access's get methods, then an index class's method; -1 otherwise.
     */
    private int indexRead(int[] f, int top) {
        for (int i = top; i < f.length && i < DEPTH; i++) {
            String n = frames.name(f[i]);
            if (isIndexMethod(n)) return i;
            if (!isBufferRead(n)) return -1;
        }
        return -1;
    }

    /** Kafka's memory-mapped indexes: kafka.log.* up to 3.x, org.apache.kafka.storage.internals.log.* after. */
    static boolean isIndexMethod(String n) {
        return n.contains(".OffsetIndex.") || n.contains(".TimeIndex.") || n.contains(".AbstractIndex.")
                || n.contains(".LazyIndex.") || n.startsWith("kafka.log.IndexSearchType");
    }

    /** A read from a mapped buffer: what the index's lookup calls, the frames a page fault interrupts. */
    static boolean isBufferRead(String n) {
        return (n.startsWith("java.nio.") && (n.contains("Buffer.get") || n.contains("Buffer.ix") || n.contains("Buffer.address")))
                || n.startsWith("jdk.internal.misc.ScopedMemoryAccess.get") || n.startsWith("jdk.internal.misc.Unsafe.get")
                || n.startsWith("sun.misc.Unsafe.get") || n.startsWith("java.nio.Bits.");
    }

    /** The Linux kernel's page-fault path, as perf (async-profiler) names its frames on x86-64 and arm64. */
    static boolean isPageFault(String n) {
        String s = n.endsWith("_[k]") ? n.substring(0, n.length() - 4) : n;
        return s.equals("asm_exc_page_fault") || s.equals("exc_page_fault") || s.equals("do_user_addr_fault")
                || s.equals("handle_mm_fault") || s.equals("__handle_mm_fault") || s.equals("filemap_fault")
                || s.equals("do_fault") || s.equals("__do_fault") || s.equals("do_read_fault") || s.equals("filemap_map_pages")
                || s.equals("page_fault") || s.equals("do_page_fault") || s.equals("do_mem_abort") || s.equals("el0_da")
                || s.equals("do_translation_fault");
    }
}
