package io.stallscope.agent.runtime;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.stallscope.agent.bootstrap.OpSink;
import io.stallscope.agent.config.AgentOptions;
import io.stallscope.agent.logging.BrokerLog;
import io.stallscope.agent.model.ThreadRoles;
import io.stallscope.agent.report.OpMetrics;
import io.stallscope.agent.report.OpRecorder;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/** The agent's real recorder, as a sink for hook tests; loaded after the hooks are in place. */
final class RecorderSink {
    private RecorderSink() {
    }

    /** The recorder with these options, its slow-op lines into {@code lines}, its meters in {@code registry}. */
    static OpSink withLines(MeterRegistry registry, String options, List<String> lines) throws Exception {
        return withLines(registry, options, lines, List.of("CONTROLLER"));
    }

    /** The same, with these listener names as the controller's (what RunningAgent reads from the options). */
    static OpSink withLines(MeterRegistry registry, String options, List<String> lines,
                            List<String> controllerListeners) throws Exception {
        return new OpRecorder(new OpMetrics(registry, false, 100), new ThreadRoles(controllerListeners),
            AgentOptions.parse(options, Map.of()), BrokerLog.get(), false, null, null, lines::add);
    }

    /** The recorder with these options, its slow-op lines into {@code lines}, whatever that does with them. */
    static OpSink withLineSink(MeterRegistry registry, String options, Consumer<String> lines) throws Exception {
        return new OpRecorder(new OpMetrics(registry, false, 100), new ThreadRoles(List.of("CONTROLLER")),
            AgentOptions.parse(options, Map.of()), BrokerLog.get(), false, null, null, lines);
    }

    /** Waits (10 s at most) until the slow ops the recorder has seen are reported: lines written, pairings counted. */
    static void drain(OpSink recorder) throws InterruptedException {
        if (!((OpRecorder) recorder).drain(10, TimeUnit.SECONDS)) {
            throw new AssertionError("the slow ops were not reported within 10 s");
        }
    }

    /**
     * Default options but a slow threshold no op reaches: a call the shared machine happens to stall (a GC, a busy
     * core) must not take the slow path, which may allocate, inside a measurement of the fast one.
     */
    static OpSink fastPathOnly() throws Exception {
        return new OpRecorder(new OpMetrics(new SimpleMeterRegistry(), false, 100),
            new ThreadRoles(List.of("CONTROLLER")), AgentOptions.parse("slow.threshold=3600s", Map.of()),
            BrokerLog.get(), false);
    }
}
