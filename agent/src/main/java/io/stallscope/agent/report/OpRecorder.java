package io.stallscope.agent.report;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.bootstrap.OpSink;
import io.stallscope.agent.bootstrap.ThreadState;
import io.stallscope.agent.capture.CaptureSettings;
import io.stallscope.agent.capture.StallListener;
import io.stallscope.agent.config.AgentOptions;
import io.stallscope.agent.logdir.KnownLogDirs;
import io.stallscope.agent.logging.BrokerLog;
import io.stallscope.agent.model.LogPaths;
import io.stallscope.agent.model.OpKind;
import io.stallscope.agent.model.SubjectPaths;
import io.stallscope.agent.model.ThreadRole;
import io.stallscope.agent.model.ThreadRoles;
import io.stallscope.agent.model.TopicPartition;
import io.stallscope.agent.report.blame.BlameFinder;
import io.stallscope.agent.report.blame.Culprit;
import io.stallscope.agent.report.blame.KnownLogDirDevices;
import io.stallscope.agent.report.blame.LogDirDevices;
import io.stallscope.agent.report.blame.Overlapping;
import io.stallscope.agent.report.jfr.ForeignRecordings;
import io.stallscope.agent.report.jfr.OpEventField;
import io.stallscope.agent.report.jfr.OpEvents;
import jdk.jfr.Event;

import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The sink every timed op reaches: histograms always; the topic-partition, slow-op line and JFR
 * event only for ops over their thresholds (or with topic labels on), so the common path does no
 * reflection, no allocation and no string work.
 *
 * <p>A slow op runs on Kafka's thread, often inside the partition's lock, so only what must happen there does:
 * its own fields, the check of the line budget, and, for a line that gets through or a JFR event, one bounded copy
 * of the other threads' ops that overlapped it ({@link BlameFinder#copy}). Ranking those ops (which resolves their
 * paths), the pairing metric (which may register a series), and formatting and writing the line (a write into the
 * broker's log) run on the agent's own thread ({@link SlowOpReporter}). The JFR event is the exception: an event
 * belongs to the thread that commits it, with that thread's stack and the commit's time, so it is committed here
 * as the op ends, and when one is recorded its culprit is ranked here too.
 */
public final class OpRecorder implements OpSink {
    /** Slow ops waiting for the agent's thread at most; beyond, they are dropped and counted. */
    public static final int REPORT_QUEUE = SlowOpReporter.CAPACITY;

    private final OpMetrics metrics;
    private final ThreadRoles roles;
    private final SlowOpLog slowLog;
    private final long[] slowThreshold = new long[Op.COUNT];
    private final long[] jfrThreshold = new long[Op.COUNT];
    private final long[] captureThreshold = new long[Op.COUNT];
    private final StallListener stalls;
    private final long detailThreshold;
    private final NoopFlushDetector noopFlushes = new NoopFlushDetector();
    private final BrokerLog log;
    private final BlameFinder blame;
    private final SlowOpReporter reporter;
    private volatile boolean adviceFailureLogged;
    private volatile KnownLogDirs logDirs;

    public OpRecorder(OpMetrics metrics, ThreadRoles roles, AgentOptions options, BrokerLog log, boolean jfr) {
        this(metrics, roles, options, log, jfr, null, null);
    }

    /** @param stalls told of ops at least their capture trigger long (profile=on), or null */
    public OpRecorder(OpMetrics metrics, ThreadRoles roles, AgentOptions options, BrokerLog log, boolean jfr,
                      StallListener stalls, CaptureSettings capture) {
        this(metrics, roles, options, log, jfr, stalls, capture, log::warn);
    }

    /** @param slowLines where slow-op lines go: the broker log's WARN level, or a test's list */
    public OpRecorder(OpMetrics metrics, ThreadRoles roles, AgentOptions options, BrokerLog log, boolean jfr,
                      StallListener stalls, CaptureSettings capture, Consumer<String> slowLines) {
        this.metrics = metrics;
        this.stalls = stalls;
        this.roles = roles;
        this.log = log;
        this.blame = new BlameFinder(roles);
        this.slowLog = new SlowOpLog(slowLines, options.slowLogPerMinute());
        long detail = Long.MAX_VALUE;
        for (int op = 0; op < Op.COUNT; op++) {
            slowThreshold[op] = options.slowThresholdNanos(op);
            jfrThreshold[op] = jfr ? options.jfrThresholdNanos(op) : Long.MAX_VALUE;
            captureThreshold[op] = stalls == null ? Long.MAX_VALUE : capture.triggerNanos(op);
            detail = Math.min(detail, Math.min(Math.min(slowThreshold[op], jfrThreshold[op]), captureThreshold[op]));
        }
        this.detailThreshold = detail;
        this.reporter = new SlowOpReporter(metrics::slowOpDropped);
    }

    @Override
    public void record(int op, long startNanos, long durationNanos, Object subject, long bytes,
                       Throwable thrown, ThreadState state) {
        String threadName = Thread.currentThread().getName();
        int role = roleOf(state, threadName);
        metrics.record(op, role, durationNanos, bytes, thrown != null);
        if (op == Op.SEGMENT_FLUSH && thrown == null && noopFlushes.isNoop(subject)) {
            metrics.noopFlush(role);
        }
        KnownLogDirs dirs = logDirs;
        if (durationNanos < detailThreshold && !metrics.topicLabels()) {
            if (dirs != null && dirs.wantsPath(startNanos)) {
                dirs.seen(SubjectPaths.pathOf(subject));
            }
            return;
        }
        String path = SubjectPaths.pathOf(subject);
        if (dirs != null) {
            dirs.seen(path);
        }
        TopicPartition tp = LogPaths.topicPartition(path);
        if (metrics.topicLabels()) {
            metrics.recordTopic(op, role, tp, durationNanos);
        }
        // an append is slow for its own share, the lock wait: a slow write inside it has its own line
        long lockWait = op == Op.LOG_APPEND ? Math.max(0, durationNanos - state.endedInnerNanos()) : -1;
        boolean slow = (lockWait >= 0 ? lockWait : durationNanos) >= slowThreshold[op];
        Event event = durationNanos >= jfrThreshold[op] ? enabledEvent(op) : null;
        SlowOpLine line = null;
        if (slow) {
            metrics.slow(op, role);
            line = slowLog.line(op, durationNanos, threadName, ThreadRole.of(role), tp, bytes, path, thrown, state,
                lockWait);
        } else if (state.slowInner != null) {
            line = slowLog.notSlowLine(threadName, ThreadRole.of(role), tp, state);
        }
        // blame only what will be told: a line within the budget, or a JFR event
        Overlapping overlapping = slow && (line != null || event != null)
            ? blame.copy(state, op, path, startNanos, startNanos + durationNanos) : null;
        Culprit culprit = null;
        Overlapping toRank = overlapping;
        if (event != null) {
            culprit = blame.rank(op, path, overlapping, devices(dirs));
            toRank = null; // ranked
            commit(event, op, durationNanos, ThreadRole.of(role), tp, bytes, path, thrown, culprit);
        }
        if (line != null || culprit != null || toRank != null) {
            Culprit ranked = culprit;
            Overlapping unranked = toRank;
            SlowOpLine told = line;
            reporter.submit(() -> report(op, role, path, unranked, ranked, told, dirs));
        }
        if (durationNanos >= captureThreshold[op]) {
            stalls.stalled(op, durationNanos, threadName, tp);
        }
    }

    /**
     * On the agent's thread: ranks the overlapping ops unless the op's thread did ({@code unranked} null), counts the
     * culprit, writes the line.
     */
    private void report(int op, int role, String path, Overlapping unranked, Culprit ranked, SlowOpLine line,
                        KnownLogDirs dirs) {
        try {
            Culprit culprit = unranked == null ? ranked : blame.rank(op, path, unranked, devices(dirs));
            if (culprit != null) {
                metrics.blockedBehind(op, role, culprit.op(), culprit.role(), culprit.scope().label(),
                    culprit.overlapNanos());
            }
            if (line != null) {
                slowLog.write(line, culprit);
            }
        } catch (Throwable t) {
            adviceFailed(op, t);
        }
    }

    private static LogDirDevices devices(KnownLogDirs dirs) {
        return dirs == null ? LogDirDevices.NONE : new KnownLogDirDevices(dirs);
    }

    /**
     * Waits until the slow ops recorded so far are reported (their lines written, their pairings counted); false
     * when that took longer than the timeout.
     */
    public boolean drain(long timeout, TimeUnit unit) throws InterruptedException {
        return reporter.drain(timeout, unit);
    }

    /** At detach: reports what is queued, for a second at most, and ends the reporting thread. */
    public void close() {
        reporter.stop();
    }

    /** Learn log dirs from the paths of ops: those this recorder resolves anyway, and one a second besides. */
    public void learnLogDirs(KnownLogDirs dirs) {
        this.logDirs = dirs;
    }

    private int roleOf(ThreadState state, String threadName) {
        if (state.roleName != threadName) { // by reference: thread names rarely change
            state.role = roles.classify(threadName).ordinal();
            state.roleName = threadName;
        }
        return state.role;
    }

    /** A new event of the op's type if a recording wants it, else null. */
    private static Event enabledEvent(int op) {
        if (ForeignRecordings.onlyOwn()) {
            return null; // only the agent's own safepoint stream runs: no one asked for op events
        }
        Event event = OpEvents.create(op);
        return event.isEnabled() ? event : null;
    }

    private static void commit(Event event, int op, long durationNanos, ThreadRole role, TopicPartition tp, long bytes,
                               String path, Throwable thrown, Culprit culprit) {
        OpEvents.set(event, OpEventField.OP, OpKind.name(op));
        OpEvents.set(event, OpEventField.OP_DURATION, durationNanos);
        OpEvents.set(event, OpEventField.THREAD_ROLE, role.label());
        OpEvents.set(event, OpEventField.TOPIC, tp == null ? null : tp.topic());
        OpEvents.set(event, OpEventField.PARTITION, tp == null ? -1 : tp.partition());
        OpEvents.set(event, OpEventField.BYTES, bytes);
        OpEvents.set(event, OpEventField.PATH, path);
        OpEvents.set(event, OpEventField.FAILED, thrown != null);
        if (culprit != null) {
            OpEvents.set(event, OpEventField.BEHIND_OP, OpKind.name(culprit.op()));
            OpEvents.set(event, OpEventField.BEHIND_THREAD, culprit.thread());
            OpEvents.set(event, OpEventField.BEHIND_OVERLAP_MS, culprit.overlapNanos() / 1_000_000L);
            OpEvents.set(event, OpEventField.SCOPE, culprit.scope().label());
        }
        event.commit();
    }

    /** Counted only: no line, no event, no culprit. */
    @Override
    public void indexCacheLookup(boolean hit) {
        metrics.indexCacheLookup(hit);
    }

    @Override
    public void adviceFailed(int op, Throwable error) {
        metrics.adviceFailed(op);
        if (!adviceFailureLogged) {
            adviceFailureLogged = true;
            log.error("an exception inside the agent's advice for op " + OpKind.name(op) + " was suppressed ("
                + error + "); the broker is unaffected, further ones are only counted in "
                + "stallscope_advice_errors_total");
        }
    }
}
