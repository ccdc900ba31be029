package io.stallscope.agent.mitigate;

import io.stallscope.agent.config.AgentOptions;
import io.stallscope.agent.instrument.VisitorWeaver;
import io.stallscope.agent.kafka.TargetResolver;
import io.stallscope.agent.logging.BrokerLog;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.agent.builder.ResettableClassFileTransformer;

import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.List;

/**
 * The mitigations chosen with mitigate=, woven into Kafka's classes by their own transformer (advice and
 * call-site substitution only: no class-format change), so they can be removed on detach
 * independently of the timing points.
 */
public final class Mitigations {
    private final Instrumentation instrumentation;
    private final BrokerLog log;
    private final List<String> status;
    private final boolean rollFlush;
    private ResettableClassFileTransformer transformer;

    private Mitigations(Instrumentation instrumentation, BrokerLog log, List<String> status, boolean rollFlush) {
        this.instrumentation = instrumentation;
        this.log = log;
        this.status = status;
        this.rollFlush = rollFlush;
    }

    public static Mitigations install(AgentOptions options, Instrumentation inst, TargetResolver shapes,
                                      MitigationMetrics metrics, BrokerLog log, String kafkaVersion) {
        List<String> status = new ArrayList<>();
        Transformations all = new Transformations();
        boolean rollFlush = false;
        if (options.mitigate("roll-flush")) {
            RollFlushMitigation m = RollFlushMitigation.resolve(shapes, kafkaVersion);
            status.add(m.describe());
            if (m.applies()) {
                RollFlushHooks.install(new PendingSnapshots(options.rollFlushMaxPending(), metrics), metrics);
                all.addAll(m.transformations());
                rollFlush = true;
            }
        }
        if (options.mitigate("prefetch")) {
            String[] why = new String[1];
            Unmapper unmapper = Unmapper.find(why);
            PrefetchMitigation m = unmapper == null ? PrefetchMitigation.skipped(why[0])
                : PrefetchMitigation.resolve(shapes, "slices from " + options.prefetchMinBytes() + " bytes, at most "
                    + options.prefetchMaxBytes() + " per partition and " + options.prefetchMaxFetchBytes()
                    + " per fetch, " + options.prefetchMaxWaitNanos() / 1_000_000 + " ms per fetch"
                    + (options.prefetchAheadBytes() == 0 ? "" : ", " + options.prefetchAheadBytes() + " bytes ahead"));
            status.add(m.describe());
            if (m.applies()) {
                String[] noAdvice = new String[1];
                SliceWarmer slices = new SliceWarmer(unmapper, PageAdvice.find(inst, noAdvice));
                if (noAdvice[0] != null) {
                    // load() reads a byte per page from Java: a cold page then holds every safepoint back
                    status.add("prefetch loads pages from Java code: " + noAdvice[0]);
                }
                AheadWarmer ahead = options.prefetchAheadBytes() == 0 ? null
                    : new AheadWarmer(slices, options.prefetchAheadBytes(), metrics.prefetch());
                FetchWarmer warmer = new FetchWarmer(options.prefetchMinBytes(), options.prefetchMaxBytes(),
                    options.prefetchMaxFetchBytes(), options.prefetchMaxWaitNanos(), slices, metrics.prefetch(), ahead);
                PrefetchHooks.install(warmer, metrics.prefetch(), options.prefetchCheckLocks());
                all.addAll(m.transformations());
            }
        }
        if (options.mitigate("index-warm")) {
            String[] why = new String[1];
            PageAdvice advice = PageAdvice.find(inst, why);
            IndexWarmMitigation m = advice == null ? IndexWarmMitigation.skipped(why[0] + "; touching the pages from Java"
                    + " would hold every safepoint up, which is what it is for")
                : IndexWarmMitigation.resolve(shapes, "indexes up to " + options.indexWarmMaxBytes() + " bytes, "
                    + options.indexWarmMaxWaitNanos() / 1_000_000 + " ms per lookup");
            status.add(m.describe());
            if (m.applies()) {
                IndexWarmMetrics counted = metrics.indexWarm();
                IndexWarmHooks.install(new IndexWarmer(advice, options.indexWarmMaxBytes(), options.indexWarmMaxWaitNanos(),
                    counted), counted);
                all.addAll(m.transformations());
            }
        }
        if (options.mitigate("hole-repair")) {
            // woven with the hole detection, which finds what it repairs: its state is in that clause of the line
            status.add("hole-repair with the hole detection");
        }
        Mitigations mitigations = new Mitigations(inst, log, status, rollFlush);
        if (!all.byType().isEmpty()) {
            mitigations.transformer = weave(all, inst, metrics, log);
        }
        return mitigations;
    }

    private static ResettableClassFileTransformer weave(Transformations all, Instrumentation inst,
                                                        MitigationMetrics metrics, BrokerLog log) {
        return VisitorWeaver.install(all.byType(), inst, (typeName, error) -> {
            metrics.failed("weave", error);
            log.error("could not apply a mitigation to " + typeName + " (" + error + "); it runs as Kafka wrote it");
        });
    }

    /** Hands a disk's error to Kafka's log-dir failure path; says what became of it, for the ERROR line. */
    private static String offline(PendingSnapshots.Failure failure) {
        if (!failure.ioError || failure.log == null) {
            return "";
        }
        try {
            String message = "Error while flushing the producer-state snapshot " + failure.file
                + " (deferred by roll-flush, synced at detach)";
            return "; log dir " + LogDirFailures.report(failure.log, failure.file, message, failure.error)
                + " handed to Kafka's log-dir failure handler";
        } catch (ReflectiveOperationException | RuntimeException e) {
            return "; could not hand it to Kafka's log-dir failure handler (" + e + ")";
        }
    }

    /** For the start-up line: which mitigation is on, not needed, or skipped. */
    public String summary() {
        return status.isEmpty() ? "mitigations off" : "mitigations [" + String.join("; ", status) + "]";
    }

    /**
     * Stops deferring, makes every deferred snapshot durable (the others are still synced past one that
     * fails), and restores Kafka's code. A snapshot whose fsync fails goes to Kafka's log-dir failure path,
     * which takes its dir offline as the same error in the roll would without the agent; each one not made
     * durable is also an ERROR line in the broker's log.
     */
    public void stop() {
        IndexWarmHooks.uninstall(); // a lookup parked in a warm-up ends by its own bound
        FetchWarmer warmer = PrefetchHooks.uninstall(); // a warm-up in flight ends by its own bound and unmaps
        if (warmer != null) {
            warmer.close();
        }
        // closed before it is flushed: a roll past the switch fsyncs inline, none defers after this sync
        PendingSnapshots pending = rollFlush ? RollFlushHooks.uninstall() : null;
        if (pending != null) {
            for (PendingSnapshots.Failure failure : pending.flushAll()) {
                log.error("roll-flush: a deferred producer-state snapshot is not durable on detach: " + failure
                    + offline(failure));
            }
        }
        if (transformer != null) {
            transformer.reset(instrumentation, AgentBuilder.RedefinitionStrategy.RETRANSFORMATION);
        }
    }
}
