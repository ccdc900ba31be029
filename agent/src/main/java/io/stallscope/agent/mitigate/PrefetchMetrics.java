package io.stallscope.agent.mitigate;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * What the prefetch did, registered only when it is on: stallscope_prefetch_bytes_total,
 * stallscope_prefetch_seconds_total, and stallscope_mitigation_events_total{mitigation="prefetch",event}
 * with event warmed (fetches), capped, timed_out and skipped_REASON.
 */
final class PrefetchMetrics {
    static final String BYTES = "stallscope.prefetch.bytes";
    static final String SECONDS = "stallscope.prefetch.seconds";

    private final MitigationMetrics events;
    private final Counter bytes;
    private final Counter seconds;

    PrefetchMetrics(MeterRegistry registry, MitigationMetrics events) {
        this.events = events;
        this.bytes = Counter.builder(BYTES).baseUnit("bytes")
            .description("Bytes the prefetch mitigation brought into the page cache").register(registry);
        this.seconds = Counter.builder(SECONDS)
            .description("Time request handlers spent warming the page cache for fetches").register(registry);
    }

    void warmed(long warmedBytes, long nanos) {
        events.event(FetchWarmer.MITIGATION, "warmed");
        bytes.increment(warmedBytes);
        seconds.increment(nanos / 1e9);
    }

    void aheadWarmed(long warmedBytes) {
        events.event(FetchWarmer.MITIGATION, "ahead_warmed");
        bytes.increment(warmedBytes);
    }

    void event(String event) {
        events.event(FetchWarmer.MITIGATION, event);
    }

    void failed(Throwable t) {
        events.failed(FetchWarmer.MITIGATION, t);
    }
}
