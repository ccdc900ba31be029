package io.stallscope.agent.report;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Fixed-bucket latency histogram for the hot path: a LongAdder per bucket and for the sum, a max
 * that is written only when exceeded, no clock read and no shared atomic, so request-handler
 * threads recording at once do not contend. (Micrometer's Timer costs about three times as much per
 * record here: two time-windowed structures, each reading the wall clock.) Exposed to Prometheus by
 * {@link HistogramCollector} and to JMX by {@link JmxExporter}.
 */
public final class OpHistogram {
    /** Upper bounds in nanoseconds: 10 us to 10 s in 1-2.5-5 steps; above the last is +Inf. */
    static final long[] BOUNDS = bounds();
    private static final long MAX_WINDOW_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final LongAdder[] counts = new LongAdder[BOUNDS.length + 1];
    private final LongAdder sumNanos = new LongAdder();
    private final AtomicLong max = new AtomicLong();
    private volatile long previousMax;
    private volatile long maxWindowStart = System.nanoTime();

    public OpHistogram() {
        for (int i = 0; i < counts.length; i++) {
            counts[i] = new LongAdder();
        }
    }

    public void record(long nanos) {
        int i = 0;
        while (i < BOUNDS.length && nanos > BOUNDS[i]) {
            i++;
        }
        counts[i].increment();
        sumNanos.add(nanos);
        if (nanos > max.get()) {
            max.accumulateAndGet(nanos, Math::max);
        }
    }

    /** Non-cumulative counts per bucket, the last one for +Inf. Read without stopping writers. */
    public long[] bucketCounts() {
        long[] out = new long[counts.length];
        for (int i = 0; i < counts.length; i++) {
            out[i] = counts[i].sum();
        }
        return out;
    }

    public long count() {
        long n = 0;
        for (LongAdder c : counts) {
            n += c.sum();
        }
        return n;
    }

    public long sumNanos() {
        return sumNanos.sum();
    }

    /** The longest op in the last one to two minutes; rotated by readers, so writers never read a clock. */
    public long maxNanos() {
        long now = System.nanoTime();
        if (now - maxWindowStart >= MAX_WINDOW_NANOS) {
            synchronized (this) {
                if (now - maxWindowStart >= MAX_WINDOW_NANOS) {
                    previousMax = max.getAndSet(0);
                    maxWindowStart = now;
                }
            }
        }
        return Math.max(previousMax, max.get());
    }

    /** The upper bound (seconds) of the bucket holding quantile q, +Inf past the last bound, 0 when empty. */
    public double quantileUpperBoundSeconds(double q) {
        long[] c = bucketCounts();
        long total = 0;
        for (long n : c) {
            total += n;
        }
        if (total == 0) {
            return 0;
        }
        long seen = 0;
        for (int i = 0; i < c.length; i++) {
            seen += c[i];
            if (seen >= q * total) {
                return i < BOUNDS.length ? BOUNDS[i] / 1e9 : Double.POSITIVE_INFINITY;
            }
        }
        return Double.POSITIVE_INFINITY;
    }

    private static long[] bounds() {
        java.util.List<Long> out = new java.util.ArrayList<>();
        for (long decade = 10_000L; decade <= 10_000_000_000L; decade *= 10) {
            out.add(decade);
            if (decade < 10_000_000_000L) {
                out.add(decade * 25 / 10);
                out.add(decade * 5);
            }
        }
        return out.stream().mapToLong(Long::longValue).toArray();
    }
}
