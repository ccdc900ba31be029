package io.stallscope.agent.runtime;

import io.micrometer.core.instrument.MeterRegistry;
import io.stallscope.agent.config.AgentOptions;
import io.stallscope.agent.logging.BrokerLog;
import io.stallscope.agent.safepoint.SafepointTiming;

import java.util.List;

/**
 * Starts safepoint timing (safepoint.timing=true) where the JVM can stream its own events, and says in the start-up
 * line what it did: on, off by option, or off and why (no jdk.jfr module, Java before 14, a stream that failed).
 */
final class SafepointReporting {
    private final SafepointTiming timing;
    private final String summary;

    private SafepointReporting(SafepointTiming timing, String summary) {
        this.timing = timing;
        this.summary = summary;
    }

    static SafepointReporting off(String why) {
        return new SafepointReporting(null, "safepoint timing " + why);
    }

    static SafepointReporting start(MeterRegistry registry, AgentOptions options, boolean jfr, BrokerLog log,
                                    List<String> problems) {
        if (!options.safepointTiming()) {
            return off("off");
        }
        if (!Environment.jfrAvailable()) {
            return off("off: no jdk.jfr module in this JVM");
        }
        try {
            SafepointTiming timing = SafepointTiming.start(registry, options.safepointSlowThresholdNanos(), jfr,
                log::warn, options.slowLogPerMinute());
            return new SafepointReporting(timing, timing.summary());
        } catch (UnsupportedOperationException e) {
            return off("off: " + e.getMessage());
        } catch (Throwable t) {
            problems.add("safepoint timing not started (" + t + ")");
            return off("off");
        }
    }

    String summary() {
        return summary;
    }

    void stop() {
        if (timing != null) {
            timing.close();
        }
    }
}
