package io.stallscope.agent.runtime;

import io.micrometer.core.instrument.distribution.pause.NoPauseDetector;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.stallscope.agent.bootstrap.Hooks;
import io.stallscope.agent.capture.CaptureSettings;
import io.stallscope.agent.capture.StallCapture;
import io.stallscope.agent.config.AgentOptions;
import io.stallscope.agent.instrument.InstrumentationPoint;
import io.stallscope.agent.instrument.Instrumenter;
import io.stallscope.agent.instrument.PointPlan;
import io.stallscope.agent.instrument.Points;
import io.stallscope.agent.kafka.KafkaMembers;
import io.stallscope.agent.kafka.TargetResolver;
import io.stallscope.agent.logdir.ConfiguredLogDirs;
import io.stallscope.agent.logdir.KnownLogDirs;
import io.stallscope.agent.logging.BrokerLog;
import io.stallscope.agent.mitigate.MitigationMetrics;
import io.stallscope.agent.mitigate.Mitigations;
import io.stallscope.agent.model.OpKind;
import io.stallscope.agent.model.ThreadRoles;
import io.stallscope.agent.report.AgentInfo;
import io.stallscope.agent.report.JmxExporter;
import io.stallscope.agent.report.OpMetrics;
import io.stallscope.agent.report.OpRecorder;
import io.stallscope.agent.report.PrometheusEndpoint;
import io.stallscope.agent.stopstart.StopStartBreakdown;
import io.stallscope.agent.holes.HoleDetection;
import net.bytebuddy.pool.TypePool;

import java.lang.instrument.Instrumentation;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The agent while active: its transformer, metrics and endpoints. This class names the bootstrap
 * hook classes, so it is loaded only after they were put on the bootstrap class path.
 */
final class RunningAgent {
    private final Instrumenter instrumenter;
    private final Mitigations mitigations;
    private final PrometheusEndpoint endpoint;
    private final StallCapture capture;
    private final JmxExporter jmx;
    private final BrokerLog log;
    private final String startupLine;
    private KnownLogDirs logDirs;
    private OpRecorder recorder;
    private StopStartBreakdown breakdown = StopStartBreakdown.off();
    private HoleDetection holes;
    private SafepointReporting safepoints = SafepointReporting.off("off");

    private RunningAgent(Instrumenter instrumenter, Mitigations mitigations, PrometheusEndpoint endpoint, JmxExporter jmx,
                         BrokerLog log, String startupLine, StallCapture capture) {
        this.capture = capture;
        this.instrumenter = instrumenter;
        this.mitigations = mitigations;
        this.endpoint = endpoint;
        this.jmx = jmx;
        this.log = log;
        this.startupLine = startupLine;
    }

    String startupLine() {
        return startupLine;
    }

    static RunningAgent create(AgentOptions options, Instrumentation inst, String how, BrokerLog log,
                               String bootstrapProblem, long startNanos) {
        List<String> problems = new ArrayList<>(options.ignored());
        if (bootstrapProblem != null) {
            problems.add("bootstrap class path not usable: " + bootstrapProblem);
        }
        boolean jfr = options.jfr() && Environment.jfrAvailable();
        if (options.jfr() && !jfr) {
            problems.add("no jdk.jfr module in this JVM: JFR events off");
        }
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        // Micrometer's default pause detector runs a LatencyUtils thread inside the broker and adds
        // work to every record: the agent measures stalls itself, it needs no coordinated-omission fix
        registry.config().pauseDetector(new NoPauseDetector());
        OpMetrics metrics = new OpMetrics(registry, options.topicLabels(), options.topicLabelsMax());
        List<String> controllerListeners = options.controllerListeners();
        if (controllerListeners == null) {
            controllerListeners = Environment.controllerListenersFromServerProperties();
        }
        ThreadRoles roles = new ThreadRoles(controllerListeners == null
            ? Collections.singletonList("CONTROLLER") : controllerListeners);

        // one pool for points and mitigations: it caches the class files it has parsed
        TargetResolver resolver = new TargetResolver(TypePool.Default.ofSystemLoader(), Environment.kafkaVersion());
        List<PointPlan> plans = plan(resolver, options, bootstrapProblem);
        StallCapture capture = null;
        CaptureSettings captureSettings = null;
        if (options.profile()) {
            try {
                captureSettings = CaptureSettings.from(options);
                capture = StallCapture.start(captureSettings, registry, log);
            } catch (Throwable t) {
                // the rest of the agent runs without captures
                problems.add("profile=on not started (" + t + ")");
                capture = null;
                captureSettings = null;
            }
        }
        OpRecorder recorder = new OpRecorder(metrics, roles, options, log, jfr, capture, captureSettings);
        KnownLogDirs logDirs = LogDirReporting.start(registry, options, jfr, log, problems);
        if (logDirs != null) {
            recorder.learnLogDirs(logDirs);
        }
        Hooks.keepInRing(KafkaMembers.REMOTE_FETCH_INFO); // a remote read's partition, named by later queue waits
        Hooks.install(recorder);
        Instrumenter instrumenter = new Instrumenter(inst, log);
        instrumenter.install(plans);
        MitigationMetrics mitigationMetrics = new MitigationMetrics(registry, log);
        Mitigations mitigations = Mitigations.install(options, inst, resolver, mitigationMetrics, log,
            Environment.kafkaVersion());
        SafepointReporting safepoints = SafepointReporting.start(registry, options, jfr, log, inst, problems);
        StopStartBreakdown breakdown = StopStartBreakdown.off();
        if (options.stopStartBreakdown()) {
            try {
                breakdown = StopStartBreakdown.install(inst, resolver, log, jfr, options.stopProgressNanos());
            } catch (Throwable t) {
                problems.add("stop/start breakdown not started (" + t + ")");
            }
        }
        HoleDetection holes = null;
        try {
            holes = HoleDetection.install(inst, resolver, registry, log, jfr, !options.mitigate("hole-repair") ? null
                : new HoleDetection.RepairSettings(options.holeRepairQuarantineDir() == null ? null
                    : Paths.get(options.holeRepairQuarantineDir()), configuredLogDirs(), mitigationMetrics));
        } catch (Throwable t) {
            problems.add("hole detection not started (" + t + ")");
        }

        AgentInfo.register(registry, Environment.agentVersion(), Environment.kafkaVersion(), Environment.jdkVersion(),
            how, instrumented(plans) + "/" + plans.size(), mitigationsAsked(options), capture != null,
            options.topicLabels());

        List<String> services = new ArrayList<>();
        PrometheusEndpoint endpoint = null;
        if (options.prometheus().enabled()) {
            try {
                endpoint = new PrometheusEndpoint(options.prometheus(), registry);
                services.add("prometheus on http://" + endpoint.address() + "/metrics");
            } catch (Exception e) {
                problems.add("prometheus endpoint " + options.prometheus() + " not served (" + e
                    + "); metrics stay in JMX");
            }
        } else {
            services.add("prometheus off");
        }
        JmxExporter jmx = null;
        if (options.jmx()) {
            try {
                jmx = new JmxExporter(metrics);
                services.add("jmx io.stallscope:type=OpStats");
            } catch (Exception e) {
                problems.add("jmx not registered (" + e + ")");
            }
        }
        services.add(jfr ? "jfr events from " + millis(options.jfrThresholdNanos(0)) : "jfr events off");
        services.add("slow-op log from " + millis(options.slowThresholdNanos(0)));
        services.add("controller listeners " + roles.controllerListeners());
        services.add(mitigations.summary());
        services.add(breakdown.summary());
        if (holes != null) {
            services.add(holes.summary());
        }
        services.add(safepoints.summary());
        services.add(capture == null ? "profile off" : capture.summary());
        if (logDirs != null) {
            services.add(logDirs.describe());
        }
        // what the broker's start waited for the agent (premain runs before Kafka's main)
        services.add("set up in " + (System.nanoTime() - startNanos) / 1_000_000 + " ms");
        String line = StartupReport.line("active (" + how + ")", plans, services, problems);
        log.info(line);
        if (logDirs != null) {
            logDirs.announceNewOnes();
        }
        RunningAgent agent = new RunningAgent(instrumenter, mitigations, endpoint, jmx, log, line, capture);
        agent.logDirs = logDirs;
        agent.recorder = recorder;
        agent.breakdown = breakdown;
        agent.holes = holes;
        agent.safepoints = safepoints;
        return agent;
    }

    private static int instrumented(List<PointPlan> plans) {
        int n = 0;
        for (PointPlan p : plans) {
            if (p.isMatched()) {
                n++;
            }
        }
        return n;
    }

    private static String mitigationsAsked(AgentOptions options) {
        List<String> asked = options.mitigations();
        return asked.isEmpty() ? "none" : String.join(",", asked);
    }

    private static String millis(long nanos) {
        return (nanos / 1_000_000.0) + " ms";
    }

    /** Package-private for the tests of the start-up line. */
    static List<PointPlan> plan(TargetResolver resolver, AgentOptions options, String bootstrapProblem) {
        List<PointPlan> plans = new ArrayList<>();
        for (InstrumentationPoint point : Points.all()) {
            if (!options.opEnabled(point.op())) {
                plans.add(PointPlan.disabled(point, point.timed() ? "not in ops="
                    : "goes with " + OpKind.name(point.op()) + ", not in ops="));
            } else if (point.target().inJdk() && bootstrapProblem != null) {
                plans.add(PointPlan.disabled(point, "needs the bootstrap class path"));
            } else {
                plans.add(PointPlan.of(point, resolver.resolve(point.target())));
            }
        }
        return plans;
    }

    /** Undoes everything; returns the line that says so. */
    String stop() {
        mitigations.stop();
        breakdown.stop();
        if (holes != null) {
            holes.stop();
        }
        safepoints.stop();
        Hooks.install(null);
        if (recorder != null) {
            recorder.close(); // the slow ops' reporting thread, after the last line queued is written
        }
        if (capture != null) {
            capture.stop();
        }
        if (logDirs != null) {
            logDirs.close();
        }
        int restored = instrumenter.transformed().size();
        boolean reset = instrumenter.reset();
        if (endpoint != null) {
            endpoint.close();
        }
        if (jmx != null) {
            jmx.close();
        }
        String message = "detached: " + (reset ? "restored the original code of " + restored + " classes"
            : "no classes had been rewritten") + ", metrics endpoint and MBeans removed"
            + (capture == null ? "" : ", profiler stopped");
        log.info(message);
        return message;
    }

    /** The broker's log.dirs from its command line, for hole-repair's check that no quarantine goes inside one. */
    private static List<Path> configuredLogDirs() {
        List<Path> dirs = new ArrayList<>();
        for (String dir : ConfiguredLogDirs.fromCommandLine()) {
            dirs.add(Paths.get(dir));
        }
        return dirs;
    }
}
