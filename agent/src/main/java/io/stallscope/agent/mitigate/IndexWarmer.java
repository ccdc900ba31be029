package io.stallscope.agent.mitigate;

import java.lang.reflect.InvocationTargetException;
import java.nio.MappedByteBuffer;
import java.util.concurrent.locks.LockSupport;

/**
 * mitigate=index-warm: before an index lookup, brings the index's used pages into the page cache with the thread
 * parked, not faulting. A page fault in a lookup happens in Java code, where a thread cannot stop for a safepoint, so
 * every other thread of the broker waits for the disk with it (issue 54). Here one mincore tells whether the index is
 * resident; if not, madvise(WILLNEED) asks for all of it and the thread waits parked (at a safepoint) until it is, or
 * until the bound; the lookup then runs on warm pages. What it costs: a cold lookup reads the whole index (up to
 * max.bytes), not just the pages its binary search touches; a warm one pays a per-thread memo check, and one mincore
 * per index and thread every 10 s.
 */
final class IndexWarmer {
    static final String MITIGATION = "index-warm";
    /**
     * An index found resident is not asked again on this thread for this long: lookups keep its pages warm meanwhile,
     * and one mincore over a 1 MiB index takes 27 us (8 KiB: 1.9 us), against 40 ns for the memo (IndexWarmBenchmark).
     */
    static final long RECHECK_NANOS = 10_000_000_000L;
    private static final int SLOTS = 64;

    /** The last indexes this thread checked, by identity hash; strong references to at most SLOTS indexes a thread. */
    private static final class Memo {
        final Object[] index = new Object[SLOTS];
        final long[] checkedAt = new long[SLOTS];
    }

    private final PageAdvice advice;
    private final long maxBytes;
    private final long maxWaitNanos;
    private final IndexWarmMetrics metrics;
    private final ThreadLocal<Memo> memo = ThreadLocal.withInitial(Memo::new);

    IndexWarmer(PageAdvice advice, long maxBytes, long maxWaitNanos, IndexWarmMetrics metrics) {
        this.advice = advice;
        this.maxBytes = maxBytes;
        this.maxWaitNanos = maxWaitNanos;
        this.metrics = metrics;
    }

    void beforeLookup(Object index) throws ReflectiveOperationException {
        Memo m = memo.get();
        int slot = System.identityHashCode(index) & (SLOTS - 1);
        long now = System.nanoTime();
        if (m.index[slot] == index && now - m.checkedAt[slot] < RECHECK_NANOS) {
            return;
        }
        m.index[slot] = index;
        m.checkedAt[slot] = now;
        MappedByteBuffer map = IndexMaps.of(index);
        if (map == null) {
            return;
        }
        int used = map.position(); // entries times the entry size: what a lookup can read
        if (used <= 0) {
            return;
        }
        if (used > maxBytes) {
            metrics.event("skipped_large");
            return;
        }
        try {
            if (advice.resident(map, 0, used)) {
                return;
            }
            advice.willNeed(map, 0, used);
            while (!advice.resident(map, 0, used)) {
                if (Thread.currentThread().isInterrupted()) {
                    // park returns at once for it: read on, and leave the flag to Kafka's shutdown
                    metrics.event("interrupted");
                    return;
                }
                if (System.nanoTime() - now > maxWaitNanos) {
                    metrics.event("timed_out"); // the lookup faults on what is not in yet, as without the mitigation
                    return;
                }
                LockSupport.parkNanos(SliceWarmer.POLL_NANOS); // as the prefetch asks mincore again
            }
            metrics.warmed(used, System.nanoTime() - now);
        } catch (InvocationTargetException e) {
            // a resize or a close unmapped it since it was read: the lookup will find the new mapping or none
            metrics.event("unmapped");
        }
    }
}
