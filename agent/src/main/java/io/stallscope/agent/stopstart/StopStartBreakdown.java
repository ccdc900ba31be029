package io.stallscope.agent.stopstart;

import io.stallscope.agent.instrument.VisitorWeaver;
import io.stallscope.agent.kafka.Resolution;
import io.stallscope.agent.kafka.TargetResolver;
import io.stallscope.agent.logging.BrokerLog;
import io.stallscope.agent.stopstart.advice.PhaseAdvice;
import io.stallscope.agent.stopstart.advice.PhaseId;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.agent.builder.ResettableClassFileTransformer;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.asm.AsmVisitorWrapper;

import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The stop/start breakdown (stop.start.breakdown=true): resolves its phases in the catalog, weaves them with its
 * own resettable transformer, and notes when the JVM's shutdown begins, so a stop is measured from the signal.
 */
public final class StopStartBreakdown {
    private final Instrumentation instrumentation;
    private final String summary;
    private final ResettableClassFileTransformer transformer;
    private final BreakdownReporter reporter;
    private final Thread shutdownHook;

    private StopStartBreakdown(Instrumentation instrumentation, String summary, ResettableClassFileTransformer transformer,
                               BreakdownReporter reporter, Thread shutdownHook) {
        this.instrumentation = instrumentation;
        this.summary = summary;
        this.transformer = transformer;
        this.reporter = reporter;
        this.shutdownHook = shutdownHook;
    }

    public static StopStartBreakdown off() {
        return new StopStartBreakdown(null, "stop/start breakdown off", null, null, null);
    }

    public static StopStartBreakdown install(Instrumentation inst, TargetResolver resolver, BrokerLog log, boolean jfr,
                                             long progressNanos) {
        Map<String, List<AsmVisitorWrapper>> byType = new LinkedHashMap<>();
        List<String> missing = new ArrayList<>();
        boolean stop = false;
        boolean start = false;
        for (Phase phase : Phase.ALL) {
            Resolution r = resolver.resolve(phase.target());
            if (!r.isResolved()) {
                missing.add(phase.target().name() + " (" + r.reason() + ")");
                continue;
            }
            stop |= phase == Phase.STOP;
            start |= phase == Phase.LOAD_LOGS;
            AsmVisitorWrapper advice = Advice.withCustomMapping().bind(PhaseId.class, phase.ordinal())
                .to(PhaseAdvice.class).on(phase.target().advisable());
            for (String type : r.methodsByClass().keySet()) {
                byType.computeIfAbsent(type, k -> new ArrayList<>()).add(advice);
            }
        }
        if (!stop && !start) {
            return new StopStartBreakdown(null, "stop/start breakdown skipped: " + String.join("; ", missing),
                null, null, null);
        }
        BreakdownReporter reporter = new BreakdownReporter(log, jfr ? new BreakdownJfr() : null, progressNanos);
        StopStartRecorder recorder = new StopStartRecorder(reporter);
        Thread hook = new Thread(() -> recorder.shutdownBegan(System.nanoTime()), "stallscope-shutdown-began");
        try {
            Runtime.getRuntime().addShutdownHook(hook);
        } catch (IllegalStateException alreadyShuttingDown) {
            hook = null;
        }
        StopStartHooks.install(recorder);
        ResettableClassFileTransformer transformer = weave(byType, inst, log);
        String summary = "stop/start breakdown on (" + (Phase.ALL.length - missing.size()) + "/" + Phase.ALL.length
            + " phases" + (progressNanos > 0 ? ", progress every " + progressNanos / 1_000_000_000L + " s" : "") + ")"
            + (missing.isEmpty() ? "" : ", without " + String.join("; ", missing));
        return new StopStartBreakdown(inst, summary, transformer, reporter, hook);
    }

    private static ResettableClassFileTransformer weave(Map<String, List<AsmVisitorWrapper>> byType,
                                                        Instrumentation inst, BrokerLog log) {
        return VisitorWeaver.install(byType, inst, (typeName, error) -> log.error("stop/start breakdown: could not"
            + " instrument " + typeName + " (" + error + "); it runs unmodified, the broker is unaffected"));
    }

    /** For the start-up line. */
    public String summary() {
        return summary;
    }

    /** On detach: no more breakdowns, Kafka's code restored. */
    public void stop() {
        StopStartHooks.install(null);
        if (reporter != null) {
            reporter.close();
        }
        if (shutdownHook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException shuttingDown) {
                // the JVM is going down anyway
            }
        }
        if (transformer != null) {
            transformer.reset(instrumentation, AgentBuilder.RedefinitionStrategy.RETRANSFORMATION);
        }
    }
}
