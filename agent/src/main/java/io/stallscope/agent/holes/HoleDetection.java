package io.stallscope.agent.holes;

import io.micrometer.core.instrument.MeterRegistry;
import io.stallscope.agent.holes.advice.RecoverLogAdvice;
import io.stallscope.agent.holes.advice.SegmentRecoveredAdvice;
import io.stallscope.agent.holes.advice.SegmentRepairAdvice;
import io.stallscope.agent.instrument.VisitorWeaver;
import io.stallscope.agent.kafka.KafkaTargets;
import io.stallscope.agent.kafka.Resolution;
import io.stallscope.agent.kafka.TargetResolver;
import io.stallscope.agent.logging.BrokerLog;
import io.stallscope.agent.mitigate.MitigationMetrics;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.agent.builder.ResettableClassFileTransformer;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.asm.AsmVisitorWrapper;

import java.lang.instrument.Instrumentation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The power-cut hole detection, always on: weaves the end of each segment's recovery with its own resettable
 * transformer. It reads and reports, and changes what Kafka does only with mitigate=hole-repair (then recoverLog is
 * woven too, and a hole found inside it is truncated through Kafka's own corrupt-batch path: {@link HoleRepair}).
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

    /** repair: mitigate=hole-repair's settings, or null for detection only (the default). */
    public static HoleDetection install(Instrumentation inst, TargetResolver resolver, MeterRegistry registry,
                                        BrokerLog log, boolean jfr, RepairSettings repair) {
        Resolution r = resolver.resolve(KafkaTargets.SEGMENT_RECOVERED);
        if (!r.isResolved()) {
            return new HoleDetection(null, null, "hole detection off (" + r.reason() + ")"
                + (repair == null ? "" : "; hole-repair skipped with it"));
        }
        Resolution recoverLog = repair == null ? null : resolver.resolve(KafkaTargets.RECOVER_LOG);
        boolean repairs = recoverLog != null && recoverLog.isResolved();
        HoleDetector detector = new HoleDetector(new HoleReport(registry, log::warn, log::error, jfr ? new HoleJfr() : null));
        HoleHooks.install(detector, repairs ? new HoleRepair(repair.quarantineDir, repair.logDirRoots, log::warn,
            repair.metrics, System::currentTimeMillis) : null);
        Map<String, List<AsmVisitorWrapper>> byType = new LinkedHashMap<>();
        AsmVisitorWrapper segmentAdvice = Advice.to(repairs ? SegmentRepairAdvice.class : SegmentRecoveredAdvice.class)
            .on(KafkaTargets.SEGMENT_RECOVERED.advisable());
        for (String type : r.methodsByClass().keySet()) {
            byType.computeIfAbsent(type, t -> new ArrayList<>()).add(segmentAdvice);
        }
        if (repairs) {
            AsmVisitorWrapper mark = Advice.to(RecoverLogAdvice.class).on(KafkaTargets.RECOVER_LOG.advisable());
            for (String type : recoverLog.methodsByClass().keySet()) {
                byType.computeIfAbsent(type, t -> new ArrayList<>()).add(mark);
            }
        }
        ResettableClassFileTransformer transformer = VisitorWeaver.install(byType, inst, (typeName, error) ->
            log.error("hole detection: could not instrument " + typeName + " (" + error + "); it runs unmodified,"
                + " the broker is unaffected"));
        return new HoleDetection(inst, transformer, "hole detection on" + (repair == null ? ""
            : repairs ? "; hole-repair on (a log with a hole is truncated at it through Kafka's corrupt-batch path, the"
                + " later segments hard-linked first into " + (repair.quarantineDir == null
                    ? "PARTITIONDIR/" + HoleRepair.QUARANTINE_PREFIX + "MILLIS" : repair.quarantineDir.toString()) + ")"
            : "; hole-repair skipped: no " + KafkaTargets.RECOVER_LOG.describe() + " (" + recoverLog.reason()
                + "); recovery is Kafka's own"));
    }

    /**
     * What mitigate=hole-repair needs: where the quarantine goes (null: next to each log dir), the broker's configured
     * log dirs (none of which may hold it) and its counters.
     */
    public static final class RepairSettings {
        final Path quarantineDir;
        final List<Path> logDirRoots;
        final MitigationMetrics metrics;

        public RepairSettings(Path quarantineDir, List<Path> logDirRoots, MitigationMetrics metrics) {
            this.quarantineDir = quarantineDir;
            this.logDirRoots = logDirRoots;
            this.metrics = metrics;
        }
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
