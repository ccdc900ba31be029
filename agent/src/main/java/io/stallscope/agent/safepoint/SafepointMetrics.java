package io.stallscope.agent.safepoint;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * stallscope_safepoint_sync_seconds: a histogram of time to safepoint per VM operation, buckets 10 us to 10 s as the
 * op histograms'. A safepoint is a few a second at most, so Micrometer's Timer is cheap enough here; a series
 * appears with the first safepoint of its operation (the JVM's operations are a fixed set of a few dozen names).
 */
final class SafepointMetrics {
    static final String SYNC = "stallscope.safepoint.sync";
    private static final Duration[] BUCKETS = buckets();

    private final MeterRegistry registry;
    private final Map<String, Timer> byOperation = new ConcurrentHashMap<>();

    SafepointMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    void record(SafepointSync sync) {
        Timer timer = byOperation.computeIfAbsent(sync.operation, op -> Timer.builder(SYNC).tag("operation", op)
                .description("Time to safepoint: from the JVM asking every thread to stop to the last one stopping,"
                    + " while all the others waited")
                .serviceLevelObjectives(BUCKETS).register(registry));
        // several safepoints between two reads of HotSpot's counters: their sum is known, not its split
        for (int i = 0; i < sync.safepoints; i++) {
            timer.record(sync.syncNanos / sync.safepoints, TimeUnit.NANOSECONDS);
        }
    }

    void close() {
        byOperation.values().forEach(registry::remove);
        byOperation.clear();
    }

    private static Duration[] buckets() {
        List<Duration> out = new ArrayList<>();
        for (long decade = 10_000L; decade <= 1_000_000_000L; decade *= 10) {
            out.add(Duration.ofNanos(decade));
            out.add(Duration.ofNanos(decade * 5 / 2));
            out.add(Duration.ofNanos(decade * 5));
        }
        out.add(Duration.ofSeconds(10));
        return out.toArray(new Duration[0]);
    }
}
