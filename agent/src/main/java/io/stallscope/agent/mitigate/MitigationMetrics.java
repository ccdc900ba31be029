package io.stallscope.agent.mitigate;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.stallscope.agent.logging.BrokerLog;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the mitigations did, as Prometheus counters: stallscope_mitigation_events_total{mitigation,event}, and
 * the prefetch's own ({@link PrefetchMetrics}), registered only once it is on. An error inside mitigation
 * code is counted here (event="error") and said once in the broker's log; the broker then gets Kafka's
 * own behaviour for that call.
 */
public final class MitigationMetrics {
    public static final String EVENTS = "stallscope.mitigation.events";

    private final MeterRegistry registry;
    private final BrokerLog log;
    private final Map<String, Counter> events = new ConcurrentHashMap<>();
    private volatile PrefetchMetrics prefetch;
    private volatile IndexWarmMetrics indexWarm;
    private volatile boolean errorLogged;

    public MitigationMetrics(MeterRegistry registry, BrokerLog log) {
        this.registry = registry;
        this.log = log;
    }

    public void event(String mitigation, String event) {
        events.computeIfAbsent(mitigation + '/' + event, k -> Counter.builder(EVENTS)
            .tag("mitigation", mitigation).tag("event", event)
            .description("What the mitigations did, per mitigation and event").register(registry)).increment();
    }

    /** The prefetch's counters, registered on first use, so that none is exported while it is off. */
    synchronized PrefetchMetrics prefetch() {
        if (prefetch == null) {
            prefetch = new PrefetchMetrics(registry, this);
        }
        return prefetch;
    }

    /** index-warm's counters, registered on first use, so that none is exported while it is off. */
    synchronized IndexWarmMetrics indexWarm() {
        if (indexWarm == null) {
            indexWarm = new IndexWarmMetrics(registry, this);
        }
        return indexWarm;
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
