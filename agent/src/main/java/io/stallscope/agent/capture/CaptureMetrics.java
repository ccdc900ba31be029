package io.stallscope.agent.capture;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/** stallscope_captures_total{result=written|cooldown|cap|error}: what became of each triggering stall. */
public final class CaptureMetrics {
    private final Counter written;
    private final Counter cooldown;
    private final Counter cap;
    private final Counter error;

    public CaptureMetrics(MeterRegistry registry) {
        this.written = counter(registry, "written");
        this.cooldown = counter(registry, "cooldown");
        this.cap = counter(registry, "cap");
        this.error = counter(registry, "error");
    }

    private static Counter counter(MeterRegistry registry, String result) {
        return Counter.builder("stallscope_captures").tag("result", result)
            .description("Stalls that triggered a capture, by what became of it").register(registry);
    }

    void written() {
        written.increment();
    }

    void cooldown() {
        cooldown.increment();
    }

    void cap() {
        cap.increment();
    }

    void error() {
        error.increment();
    }
}
