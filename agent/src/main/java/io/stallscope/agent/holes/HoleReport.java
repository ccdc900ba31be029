package io.stallscope.agent.holes;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * What the hole detection says: one WARN line per log with a hole (in the broker's log), stallscope_log_holes{unit}
 * (logs with a hole, offsets missing; 0 from the start, so an alert can say "> 0"), stallscope_log_hole_checks_total
 * {result} (every recovered segment judged, and errors), and a JFR event per hole.
 */
final class HoleReport {
    static final String HOLES = "stallscope.log.holes";
    static final String CHECKS = "stallscope.log.hole.checks";

    private final MeterRegistry registry;
    private final Consumer<String> warn;
    private final Consumer<String> error;
    private final HoleJfrSink jfr;
    private final AtomicLong logs = new AtomicLong();
    private final AtomicLong offsets = new AtomicLong();
    private final Map<String, Counter> checks = new ConcurrentHashMap<>();
    private volatile boolean errorLogged;

    /** warn and error: the broker's log (BrokerLog's warn and error). */
    HoleReport(MeterRegistry registry, Consumer<String> warn, Consumer<String> error, HoleJfrSink jfr) {
        this.registry = registry;
        this.warn = warn;
        this.error = error;
        this.jfr = jfr;
        Gauge.builder(HOLES, logs, AtomicLong::get).tag("unit", "logs").strongReference(true)
            .description("Logs found at recovery with offsets missing between segments (a power-cut hole)").register(registry);
        Gauge.builder(HOLES, offsets, AtomicLong::get).tag("unit", "offsets").strongReference(true)
            .description("Offsets missing between segments, found at recovery (a power-cut hole)").register(registry);
    }

    void checked(String result) {
        checks.computeIfAbsent(result, r -> Counter.builder(CHECKS).tag("result", r)
            .description("Recovered segments checked for a hole, by result").register(registry)).increment();
    }

    /** newHole: not counted before; firstInLog: the log's first hole, the one its line names. */
    void hole(Hole hole, boolean newHole, boolean firstInLog) {
        checked("hole");
        if (newHole) {
            offsets.addAndGet(hole.missing());
        }
        if (firstInLog) {
            logs.incrementAndGet();
            warn.accept(hole.describe() + ". Found at recovery; Kafka does not repair it (mitigate=hole-repair can): see"
                + " docs/kafka-power-cut-hole.md");
        }
        if (jfr != null && newHole) {
            jfr.hole(hole);
        }
    }

    void failed(Throwable t) {
        checked("error");
        if (!errorLogged) {
            errorLogged = true;
            error.accept("hole detection failed on a recovered segment (" + t + "); the recovery went on as Kafka runs it,"
                + " further failures are only counted in stallscope_log_hole_checks_total{result=\"error\"}");
        }
    }

    /** The JFR side, implemented only where the JVM has jdk.jfr. */
    interface HoleJfrSink {
        void hole(Hole hole);
    }
}
