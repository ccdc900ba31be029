package io.stallscope.agent.mitigate;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.stallscope.agent.logging.BrokerLog;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the mitigations did, as Prometheus counters: stallscope_mitigation_events_total{mitigation,event},
 * stallscope_prefetch_bytes_total and stallscope_prefetch_seconds_total. An error inside mitigation
 * code is counted here (event="error") and said once in the broker's log; the broker then gets Kafka's
 * own behaviour for that call.
 */
public final class MitigationMetrics {
    public static final String EVENTS = "stallscope.mitigation.events";
    public static final String PREFETCH_BYTES = "stallscope.prefetch.bytes";
    public static final String PREFETCH_SECONDS = "stallscope.prefetch.seconds";

    private final MeterRegistry registry;
    private final BrokerLog log;
    private final Map<String, Counter> events = new ConcurrentHashMap<>();
    private final Counter prefetchBytes;
    private final Counter prefetchSeconds;
    private volatile boolean errorLogged;

    public MitigationMetrics(MeterRegistry registry, BrokerLog log) {
        this.registry = registry;
        this.log = log;
        this.prefetchBytes = Counter.builder(PREFETCH_BYTES).baseUnit("bytes")
            .description("Bytes the prefetch mitigation warmed into the page cache").register(registry);
        this.prefetchSeconds = Counter.builder(PREFETCH_SECONDS)
            .description("Time request handlers spent warming the page cache for fetches").register(registry);
    }

    public void event(String mitigation, String event) {
        events.computeIfAbsent(mitigation + '/' + event, k -> Counter.builder(EVENTS)
            .tag("mitigation", mitigation).tag("event", event)
            .description("What the mitigations did, per mitigation and event").register(registry)).increment();
    }

    public void prefetched(long bytes, long nanos) {
        prefetchBytes.increment(bytes);
        prefetchSeconds.increment(nanos / 1e9);
    }

    /** An exception in mitigation code: counted, logged once; the caller falls back to Kafka's behaviour. */
    public void failed(String mitigation, Throwable error) {
        event(mitigation, "error");
        if (!errorLogged) {
            errorLogged = true;
            log.error("mitigation " + mitigation + " failed (" + error + "); that call ran as Kafka does it,"
                + " further failures are only counted in stallscope_mitigation_events_total{event=\"error\"}");
        }
    }
}
