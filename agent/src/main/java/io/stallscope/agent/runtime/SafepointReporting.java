package io.stallscope.agent.runtime;

import io.micrometer.core.instrument.MeterRegistry;
import io.stallscope.agent.config.AgentOptions;
import io.stallscope.agent.logging.BrokerLog;
import io.stallscope.agent.safepoint.SafepointTiming;

import java.lang.instrument.Instrumentation;
import java.util.List;

/**
 * Starts safepoint timing (safepoint.timing) from the source it asks for, or for auto the one that costs this JVM
 * nothing, and says in the start-up line what it did: on and from what, off by option, or off and why (no jdk.jfr
 * module, Java before 14 for JFR, no perf data for the counters, a start that failed).
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
                                    Instrumentation inst, List<String> problems) {
        String mode = options.safepointTiming();
        if (mode.equals("off")) {
            return off("off");
        }
        if (!Environment.jfrAvailable()) {
            return off("off: no jdk.jfr module in this JVM");
        }
        String why = null;
        SafepointTiming.Source source;
        if (mode.equals("auto")) {
            why = RecordingCost.whyFree();
            source = why != null ? SafepointTiming.Source.JFR : SafepointTiming.Source.COUNTERS;
            if (why == null) {
                why = "a JFR recording would instrument this JDK's I/O classes; safepoint.timing=jfr names VM operations";
            }
        } else {
            source = mode.equals("jfr") ? SafepointTiming.Source.JFR : SafepointTiming.Source.COUNTERS;
        }
        try {
            SafepointTiming timing = SafepointTiming.start(source, inst, registry,
                options.safepointSlowThresholdNanos(), jfr, log::warn, options.slowLogPerMinute());
            return new SafepointReporting(timing, timing.summary() + (why == null ? "" : " (auto: " + why + ")"));
        } catch (UnsupportedOperationException e) {
            // auto on a JVM without perf data: say what would still time them, and at what price
            return off("off: " + e.getMessage() + (mode.equals("auto") && source == SafepointTiming.Source.COUNTERS
                ? "; safepoint.timing=jfr times them from JFR's events, which costs a broker at full speed on this JDK"
                : ""));
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
