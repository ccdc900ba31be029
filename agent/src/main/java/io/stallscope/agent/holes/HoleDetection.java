package io.stallscope.agent.holes;

import io.micrometer.core.instrument.MeterRegistry;
import io.stallscope.agent.holes.advice.SegmentRecoveredAdvice;
import io.stallscope.agent.instrument.VisitorWeaver;
import io.stallscope.agent.kafka.KafkaTargets;
import io.stallscope.agent.kafka.Resolution;
import io.stallscope.agent.kafka.TargetResolver;
import io.stallscope.agent.logging.BrokerLog;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.agent.builder.ResettableClassFileTransformer;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.asm.AsmVisitorWrapper;

import java.lang.instrument.Instrumentation;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The power-cut hole detection, always on: weaves the end of each segment's recovery with its own resettable
 * transformer. It reads and reports, it never changes what Kafka does.
 */
public final class HoleDetection {
    private final Instrumentation instrumentation;
    private final ResettableClassFileTransformer transformer;
    private final String summary;

    private HoleDetection(Instrumentation instrumentation, ResettableClassFileTransformer transformer, String summary) {
        this.instrumentation = instrumentation;
        this.transformer = transformer;
        this.summary = summary;
    }

    public static HoleDetection install(Instrumentation inst, TargetResolver resolver, MeterRegistry registry,
                                        BrokerLog log, boolean jfr) {
        Resolution r = resolver.resolve(KafkaTargets.SEGMENT_RECOVERED);
        if (!r.isResolved()) {
            return new HoleDetection(null, null, "hole detection off (" + r.reason() + ")");
        }
        HoleHooks.install(new HoleDetector(new HoleReport(registry, log::warn, log::error,
            jfr ? new HoleJfr() : null)));
        AsmVisitorWrapper advice = Advice.to(SegmentRecoveredAdvice.class).on(KafkaTargets.SEGMENT_RECOVERED.advisable());
        Map<String, List<AsmVisitorWrapper>> byType = new LinkedHashMap<>();
        for (String type : r.methodsByClass().keySet()) {
            byType.put(type, Collections.singletonList(advice));
        }
        ResettableClassFileTransformer transformer = VisitorWeaver.install(byType, inst, (typeName, error) ->
            log.error("hole detection: could not instrument " + typeName + " (" + error + "); it runs unmodified,"
                + " the broker is unaffected"));
        return new HoleDetection(inst, transformer, "hole detection on");
    }

    public String summary() {
        return summary;
    }

    /** On detach: Kafka's recovery restored. */
    public void stop() {
        HoleHooks.install(null);
        if (transformer != null) {
            transformer.reset(instrumentation, AgentBuilder.RedefinitionStrategy.RETRANSFORMATION);
        }
    }
}
