package io.stallscope.agent.stopstart;

import io.stallscope.agent.logging.BrokerLog;

import java.util.function.Consumer;

/**
 * Where a finished breakdown goes: the broker's log and, with JFR, an event; and while a stop runs, the progress
 * line. Called on the thread that stops (or starts) the log manager, before it returns: the lines are written
 * before the JVM can exit.
 */
final class BreakdownReporter {
    private final BrokerLog log;
    private final BreakdownJfrSink jfr;
    private final long progressNanos;
    private final Consumer<String> progressOut;
    private volatile StopProgress progress;

    BreakdownReporter(BrokerLog log, BreakdownJfrSink jfr, long progressNanos) {
        this.log = log;
        this.jfr = jfr;
        this.progressNanos = progressNanos;
        this.progressOut = log::info;
    }

    void began(Breakdown b) {
        if (jfr != null) {
            jfr.began(b);
        }
        if ("stop".equals(b.kind()) && progressNanos > 0) {
            StopProgress p = new StopProgress(b, progressNanos, progressOut);
            progress = p;
            p.start();
        }
    }

    void ended(Breakdown b) {
        StopProgress p = progress;
        if (p != null && "stop".equals(b.kind())) {
            p.finish();
            progress = null;
        }
        for (String line : BreakdownLines.of(b)) {
            log.info(line);
        }
        if (jfr != null) {
            jfr.ended(b);
        }
    }

    /** The broker's shutdown returned after this stop's log manager: the end line, and its JFR event. */
    void serverStopped(Breakdown b) {
        log.info(BreakdownLines.end(b));
        if (jfr != null) {
            jfr.serverStopped(b);
        }
    }

    /** On detach: no progress thread outlives the agent. */
    void close() {
        StopProgress p = progress;
        if (p != null) {
            p.finish();
        }
    }

    /** The JFR side, implemented only where the JVM has jdk.jfr. */
    interface BreakdownJfrSink {
        void began(Breakdown b);

        void ended(Breakdown b);

        void serverStopped(Breakdown b);
    }
}
