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
import io.stallscope.agent.report.jfr.OpEventField;
import io.stallscope.agent.report.jfr.OpEvents;
import jdk.jfr.Event;

import java.util.function.Consumer;

/**
 * The sink every timed op reaches: histograms always; the topic-partition, slow-op line and JFR
 * event only for ops over their thresholds (or with topic labels on), so the common path does no
 * reflection, no allocation and no string work.
 */
public final class OpRecorder implements OpSink {
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
        Culprit culprit = null;
        if ((lockWait >= 0 ? lockWait : durationNanos) >= slowThreshold[op]) {
            culprit = blame(op, role, state, path, startNanos, durationNanos, dirs);
            metrics.slow(op, role);
            slowLog.slow(op, durationNanos, threadName, ThreadRole.of(role), tp, bytes, path, thrown, state, lockWait,
                culprit);
        } else if (state.slowInner != null) {
            slowLog.notSlow(threadName, ThreadRole.of(role), tp, state);
        }
        if (durationNanos >= jfrThreshold[op]) {
            emitJfr(op, durationNanos, ThreadRole.of(role), tp, bytes, path, thrown, culprit);
        }
        if (durationNanos >= captureThreshold[op]) {
            stalls.stalled(op, durationNanos, threadName, tp);
        }
    }

    /** Slow path only: who this op waited behind, counted in the metric; null when no op overlapped it. */
    private Culprit blame(int op, int role, ThreadState state, String path, long startNanos, long durationNanos,
                          KnownLogDirs dirs) {
        Culprit culprit = blame.find(op, state, path, startNanos, startNanos + durationNanos,
            dirs == null ? LogDirDevices.NONE : new KnownLogDirDevices(dirs));
        if (culprit != null) {
            metrics.blockedBehind(op, role, culprit.op(), culprit.role(), culprit.scope().label(),
                culprit.overlapNanos());
        }
        return culprit;
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

    private static void emitJfr(int op, long durationNanos, ThreadRole role, TopicPartition tp, long bytes,
                                String path, Throwable thrown, Culprit culprit) {
        Event event = OpEvents.create(op);
        if (!event.isEnabled()) {
            return;
        }
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
