package io.stallscope.agent.report;

import io.stallscope.agent.bootstrap.ThreadState;
import io.stallscope.agent.model.OpKind;
import io.stallscope.agent.model.ThreadRole;
import io.stallscope.agent.model.TopicPartition;
import io.stallscope.agent.report.blame.Culprit;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Writes one line per slow op through the broker's log, at most {@code perMinute} a minute; the
 * ones dropped are counted and named in the next line that gets through, so a storm is visible
 * without flooding server.log. A stall is one line: slow ops that end inside another op still open on
 * the same thread (the roll's snapshot_take and its snapshot_write) are named in the enclosing op's line
 * instead of taking lines of their own from the budget.
 */
public final class SlowOpLog {
    private static final long MINUTE = 60_000_000_000L;

    private final Consumer<String> warn;
    private final int perMinute;
    private final AtomicLong windowStart = new AtomicLong(System.nanoTime());
    private final AtomicInteger inWindow = new AtomicInteger();
    private final AtomicLong suppressed = new AtomicLong();

    /** @param warn where a line goes: the broker log's WARN level */
    public SlowOpLog(Consumer<String> warn, int perMinute) {
        this.warn = warn;
        this.perMinute = perMinute;
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
        Inner inner = take(state);
        if (state.enclosedByTimedOp()) {
            // an enclosing op is still timing: this one becomes part of its line
            state.slowInner = inner.add(op, durationNanos);
            return;
        }
        write(format(op, durationNanos, thread, role, tp, bytes, path, thrown, inner.describe(), 0, lockWaitNanos,
            culprit));
    }

    /**
     * An op under its slow threshold ended. If it was the outermost one and slow ops ended inside it (its own
     * threshold being higher than theirs), the longest of them gets the line, naming the others.
     */
    public void notSlow(String thread, ThreadRole role, TopicPartition tp, ThreadState state) {
        if (state.enclosedByTimedOp() || !(state.slowInner instanceof Inner)) {
            return;
        }
        Inner inner = take(state);
        int longest = inner.longest();
        long duration = inner.durations.get(longest);
        int op = inner.ops.get(longest);
        inner.remove(longest);
        write(format(op, duration, thread, role, tp, -1, null, null, inner.describe(), 0, -1, null));
    }

    private void write(String line) {
        long now = System.nanoTime();
        long start = windowStart.get();
        if (now - start >= MINUTE && windowStart.compareAndSet(start, now)) {
            inWindow.set(0);
        }
        if (inWindow.incrementAndGet() > perMinute) {
            suppressed.incrementAndGet();
            return;
        }
        long dropped = suppressed.getAndSet(0);
        warn.accept(dropped == 0 ? line : line + dropped(dropped));
    }

    private static Inner take(ThreadState state) {
        Object pending = state.slowInner;
        state.slowInner = null;
        // each attach gives threads fresh states (HookSession), so whatever is pending here is this attach's
        return pending instanceof Inner ? (Inner) pending : new Inner();
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
        if (thrown != null) {
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

    private static String millis(long nanos) {
        return String.format(Locale.ROOT, "%.3f", nanos / 1e6);
    }

    /** Slow ops that ended inside one still open, in the order they ended (innermost first). */
    private static final class Inner {
        final List<Integer> ops = new ArrayList<>(2);
        final List<Long> durations = new ArrayList<>(2);

        Inner add(int op, long durationNanos) {
            ops.add(op);
            durations.add(durationNanos);
            return this;
        }

        int longest() {
            int best = 0;
            for (int i = 1; i < durations.size(); i++) {
                if (durations.get(i) > durations.get(best)) {
                    best = i;
                }
            }
            return best;
        }

        void remove(int i) {
            ops.remove(i);
            durations.remove(i);
        }

        /** "snapshot_take:215.003ms,snapshot_write:212.503ms", the enclosing ones first; null when empty. */
        String describe() {
            if (ops.isEmpty()) {
                return null;
            }
            StringBuilder sb = new StringBuilder();
            for (int i = ops.size() - 1; i >= 0; i--) {
                sb.append(sb.length() == 0 ? "" : ",").append(OpKind.name(ops.get(i))).append(':')
                    .append(millis(durations.get(i))).append("ms");
            }
            return sb.toString();
        }
    }
}
