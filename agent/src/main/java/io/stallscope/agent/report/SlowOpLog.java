package io.stallscope.agent.report;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.bootstrap.ThreadState;
import io.stallscope.agent.logging.LineBudget;
import io.stallscope.agent.model.CancelledInQueue;
import io.stallscope.agent.model.OpKind;
import io.stallscope.agent.model.ThreadRole;
import io.stallscope.agent.model.TopicPartition;
import io.stallscope.agent.report.blame.Culprit;

import java.util.Locale;
import java.util.function.Consumer;

/**
 * Writes one line per slow op through the broker's log, at most {@code perMinute} a minute; the
 * ones dropped are counted and named in the next line that gets through, so a storm is visible
 * without flooding server.log. A stall is one line: slow ops that end inside another op still open on
 * the same thread (the roll's snapshot_take and its snapshot_write) are named in the enclosing op's line
 * instead of taking lines of their own from the budget. Which line an op gets, and whether the budget has room, is
 * decided on the op's thread ({@link #line}); formatting and writing ({@link #write}) can happen on another.
 */
public final class SlowOpLog {
    private final Consumer<String> warn;
    private final LineBudget budget;

    /** @param warn where a line goes: the broker log's WARN level */
    public SlowOpLog(Consumer<String> warn, int perMinute) {
        this.warn = warn;
        this.budget = new LineBudget(perMinute);
    }

    /** A slow op ended on this thread; {@code state} is the thread's (its open count already lowered). */
    public void slow(int op, long durationNanos, String thread, ThreadRole role, TopicPartition tp,
                     long bytes, String path, Throwable thrown, ThreadState state) {
        slow(op, durationNanos, thread, role, tp, bytes, path, thrown, state, -1, null);
    }

    /**
     * @param lockWaitNanos for log_append, its time outside the ops inside it (the wait for the log's lock), else -1
     * @param culprit       the op this one most likely waited behind, or null: then the line names none
     */
    public void slow(int op, long durationNanos, String thread, ThreadRole role, TopicPartition tp,
                     long bytes, String path, Throwable thrown, ThreadState state, long lockWaitNanos, Culprit culprit) {
        SlowOpLine line = line(op, durationNanos, thread, role, tp, bytes, path, thrown, state, lockWaitNanos);
        if (line != null) {
            write(line, culprit);
        }
    }

    /**
     * An op under its slow threshold ended. If it was the outermost one and slow ops ended inside it (its own
     * threshold being higher than theirs), the longest of them gets the line, naming the others.
     */
    public void notSlow(String thread, ThreadRole role, TopicPartition tp, ThreadState state) {
        SlowOpLine line = notSlowLine(thread, role, tp, state);
        if (line != null) {
            write(line, null);
        }
    }

    /**
     * On the op's thread, cheap: the line a slow op gets, or null when it goes into the line of an op still open
     * around it, or when the budget is spent this minute (then it is counted, and named in the next line written).
     */
    SlowOpLine line(int op, long durationNanos, String thread, ThreadRole role, TopicPartition tp, long bytes,
                    String path, Throwable thrown, ThreadState state, long lockWaitNanos) {
        InnerOps inner = take(state);
        // a wait for an index's remap lock keeps a line of its own, paired with the resize that held it: the lookup
        // and the read around it are its victims, and with their own threshold they may never get a line
        if (state.enclosedByTimedOp() && op != Op.INDEX_REMAP_WAIT) {
            // an enclosing op is still timing: this one becomes part of its line
            state.slowInner = inner.add(op, durationNanos);
            return null;
        }
        return budget.admit() ? new SlowOpLine(op, durationNanos, thread, role, tp, bytes, path, thrown, inner,
            lockWaitNanos) : null;
    }

    /** On the op's thread: {@link #notSlow}'s line, or null. */
    SlowOpLine notSlowLine(String thread, ThreadRole role, TopicPartition tp, ThreadState state) {
        if (state.enclosedByTimedOp() || !(state.slowInner instanceof InnerOps)) {
            return null;
        }
        InnerOps inner = take(state);
        int longest = inner.longest();
        long duration = inner.durations.get(longest);
        int op = inner.ops.get(longest);
        inner.remove(longest);
        return budget.admit() ? new SlowOpLine(op, duration, thread, role, tp, -1, null, null, inner, -1) : null;
    }

    /** Formats the line and writes it, with the number of lines dropped over the budget since the last one. */
    void write(SlowOpLine line, Culprit culprit) {
        long dropped = budget.takeSuppressed();
        warn.accept(format(line.op, line.durationNanos, line.thread, line.role, line.tp, line.bytes, line.path,
            line.thrown, line.inner.describe(), dropped, line.lockWaitNanos, culprit));
    }

    private static InnerOps take(ThreadState state) {
        Object pending = state.slowInner;
        state.slowInner = null;
        // each attach gives threads fresh states (HookSession), so whatever is pending here is this attach's
        return pending instanceof InnerOps ? (InnerOps) pending : new InnerOps();
    }

    static String format(int op, long durationNanos, String thread, ThreadRole role, TopicPartition tp,
                         long bytes, String path, Throwable thrown, String inner, long dropped) {
        return format(op, durationNanos, thread, role, tp, bytes, path, thrown, inner, dropped, -1, null);
    }

    static String format(int op, long durationNanos, String thread, ThreadRole role, TopicPartition tp,
                         long bytes, String path, Throwable thrown, String inner, long dropped, long lockWaitNanos,
                         Culprit culprit) {
        StringBuilder sb = new StringBuilder(160);
        sb.append("slow op=").append(OpKind.name(op))
            .append(" duration_ms=").append(millis(durationNanos))
            .append(" thread=\"").append(thread).append('"')
            .append(" role=").append(role.label());
        if (tp != null) {
            sb.append(" topic=").append(tp.topic()).append(" partition=").append(tp.partition());
        }
        if (bytes >= 0) {
            sb.append(" bytes=").append(bytes);
        }
        if (path != null) {
            sb.append(" path=").append(path);
        }
        if (thrown instanceof CancelledInQueue) {
            sb.append(" failed=").append(((CancelledInQueue) thrown).describe()); // a wait whose task never ran
        } else if (thrown != null) {
            sb.append(" failed=").append(thrown.getClass().getName());
        }
        if (lockWaitNanos >= 0) {
            sb.append(" lock_wait_ms=").append(millis(lockWaitNanos));
        }
        if (inner != null) {
            sb.append(" inner=").append(inner);
        }
        if (culprit != null) {
            sb.append(": ").append(culprit.describe());
        }
        if (dropped > 0) {
            sb.append(dropped(dropped));
        }
        return sb.toString();
    }

    private static String dropped(long dropped) {
        return " (" + dropped + " more slow ops not logged: over slow.log.per.minute)";
    }

    static String millis(long nanos) {
        return String.format(Locale.ROOT, "%.3f", nanos / 1e6);
    }
}
