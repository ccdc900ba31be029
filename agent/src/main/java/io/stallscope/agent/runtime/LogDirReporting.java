package io.stallscope.agent.runtime;

import io.micrometer.core.instrument.MeterRegistry;
import io.stallscope.agent.config.AgentOptions;
import io.stallscope.agent.logdir.ConfiguredLogDirs;
import io.stallscope.agent.logdir.KnownLogDirs;
import io.stallscope.agent.logdir.LogDirJfr;
import io.stallscope.agent.logdir.LogDirJmx;
import io.stallscope.agent.logdir.LogDirMetrics;
import io.stallscope.agent.logging.BrokerLog;

import java.util.List;

/**
 * Sets up the log dirs' file systems: those on the broker's command line now, the rest as ops show them; reported
 * as a Prometheus info metric, an MBean each (jmx=true) and the stallscope.LogDir JFR event (jfr=true).
 */
final class LogDirReporting {
    private LogDirReporting() {
    }

    /** Returns null (and names the problem) when it could not be set up; the agent runs on without it. */
    static KnownLogDirs start(MeterRegistry registry, AgentOptions options, boolean jfr, BrokerLog log, List<String> problems) {
        KnownLogDirs dirs;
        try {
            dirs = KnownLogDirs.ofThisProcess(log);
            dirs.addListener(new LogDirMetrics(registry));
        } catch (Throwable t) {
            problems.add("log dirs not reported (" + t + ")");
            return null;
        }
        if (options.jmx()) {
            try {
                dirs.addListener(new LogDirJmx());
            } catch (Throwable t) {
                problems.add("log dir MBeans not registered (" + t + ")");
            }
        }
        if (jfr) {
            try {
                dirs.addListener(new LogDirJfr(dirs));
            } catch (Throwable t) {
                problems.add("stallscope.LogDir JFR event off (" + t + ")");
            }
        }
        try {
            dirs.addConfigured(ConfiguredLogDirs.fromCommandLine());
        } catch (Throwable t) {
            problems.add("log dirs of the command line not read (" + t + "); learned from ops instead");
        }
        return dirs;
    }
}
