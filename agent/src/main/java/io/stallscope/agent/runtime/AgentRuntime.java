package io.stallscope.agent.runtime;

import io.stallscope.agent.config.AgentOptions;
import io.stallscope.agent.config.OptionException;
import io.stallscope.agent.logging.BrokerLog;

import java.lang.instrument.Instrumentation;
import java.util.Map;

/**
 * Decides whether and how the agent runs in this JVM, and keeps the one running instance. Whatever
 * fails is reported in one line and the broker goes on without the part that failed; only
 * strict=true turns a bad option into a refusal. This class must not name the bootstrap hook
 * classes (see {@link RunningAgent}).
 */
public final class AgentRuntime {
    /** Answers the attach client: the target JVM's system property it reads after loading the agent. */
    public static final String STATUS_PROPERTY = "stallscope.status";
    private static final Object LOCK = new Object();
    private static RunningAgent active;

    private AgentRuntime() {
    }

    /** Called reflectively from the Java 8 entry class. how = "premain" or "attach". */
    public static void start(String args, Instrumentation inst, String how) {
        if ("detach".equals(args == null ? null : args.trim())) {
            detach();
            return;
        }
        if (args != null && args.startsWith("capture ")) {
            // from the capture command: "capture NANOS PATH"; the client checked both
            String[] parts = args.split(" ", 3);
            try {
                io.stallscope.agent.capture.OnDemandCapture.start(Long.parseLong(parts[1]), parts[2]);
            } catch (RuntimeException e) {
                System.setProperty(io.stallscope.agent.capture.OnDemandCapture.STATUS_PROPERTY, "error: " + e);
            }
            return;
        }
        Map<String, String> env = System.getenv();
        AgentOptions options;
        try {
            options = AgentOptions.parse(args, env);
        } catch (OptionException e) {
            // stay silent in JVMs we would not activate in anyway (tools get KAFKA_OPTS too)
            if (!AgentOptions.defaults().activateMain().matcher(Environment.mainClass()).matches()) {
                return;
            }
            String message = "invalid agent options: " + e.getMessage();
            status("error: " + message);
            if (AgentOptions.strictRequested(args, env)) {
                BrokerLog.stderr("ERROR", message + "; strict=true: refusing to start the JVM");
                throw new IllegalArgumentException("Stallscope: " + message + " (strict=true)");
            }
            BrokerLog.get().error(message + "; the agent is inactive and the broker starts without it");
            return;
        }
        if (!options.activateMain().matcher(Environment.mainClass()).matches()) {
            // a command-line tool, ZooKeeper, anything that is not a broker: stay out of the way,
            // leaving only the property an attach client reads
            status("inactive: main class '" + Environment.mainClass() + "' does not match activate.main");
            return;
        }
        synchronized (LOCK) {
            BrokerLog log = BrokerLog.get();
            if (active != null) {
                String message = "already active in this JVM; this " + how + " changes nothing"
                    + " (detach first to apply new options)";
                log.warn(message);
                status("unchanged: " + message);
                return;
            }
            try {
                long startNanos = System.nanoTime();
                // the hook classes go on the bootstrap path before any class that names them loads
                String bootstrapProblem = BootstrapInjector.inject(inst);
                active = RunningAgent.create(options, inst, how, log, bootstrapProblem, startNanos);
                status("active: " + active.startupLine());
            } catch (Throwable t) {
                String message = "could not start (" + t + "); the broker runs without the agent";
                log.error(message);
                status("error: " + message);
            }
        }
    }

    /** Removes the instrumentation, stops serving metrics, and leaves the broker as it was. */
    static void detach() {
        synchronized (LOCK) {
            RunningAgent runtime = active;
            if (runtime == null) {
                String message = "detach: the agent is not active in this JVM; nothing to do";
                BrokerLog.get().warn(message);
                status("unchanged: " + message);
                return;
            }
            String message;
            try {
                message = runtime.stop();
            } catch (Throwable t) {
                message = "detach failed part way (" + t + "); the broker keeps running";
                BrokerLog.get().error(message);
            }
            active = null;
            status("detached: " + message);
        }
    }

    static void status(String value) {
        System.setProperty(STATUS_PROPERTY, value);
    }
}
