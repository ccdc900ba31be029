package io.stallscope.agent.mitigate;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * What index-warm did, registered only when it is on: stallscope_index_warm_bytes_total,
 * stallscope_index_warm_seconds_total, and stallscope_mitigation_events_total{mitigation="index-warm",event} with
 * event warmed (indexes brought in before a lookup), timed_out, skipped_large, unmapped, interrupted and error.
 */
final class IndexWarmMetrics {
    static final String BYTES = "stallscope.index.warm.bytes";
    static final String SECONDS = "stallscope.index.warm.seconds";

    private final MitigationMetrics events;
    private final Counter bytes;
    private final Counter seconds;

    IndexWarmMetrics(MeterRegistry registry, MitigationMetrics events) {
        this.events = events;
        this.bytes = Counter.builder(BYTES).baseUnit("bytes")
            .description("Index bytes index-warm brought into the page cache before a lookup").register(registry);
        this.seconds = Counter.builder(SECONDS)
            .description("Time lookups waited, parked, for index-warm to bring their index in").register(registry);
    }

    void warmed(long warmedBytes, long nanos) {
        events.event(IndexWarmer.MITIGATION, "warmed");
        bytes.increment(warmedBytes);
        seconds.increment(nanos / 1e9);
    }

    void event(String event) {
        events.event(IndexWarmer.MITIGATION, event);
    }

    void failed(Throwable t) {
        events.failed(IndexWarmer.MITIGATION, t);
    }
}
