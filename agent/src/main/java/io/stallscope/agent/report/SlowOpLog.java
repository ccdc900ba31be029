package io.stallscope.agent.report;

import io.stallscope.agent.model.OpKind;
import io.stallscope.agent.model.ThreadRole;
import io.stallscope.agent.model.TopicPartition;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes one line per slow op through the broker's log, at most {@code perMinute} a minute; the
 * ones dropped are counted and named in the next line that gets through, so a storm is visible
 * without flooding server.log.
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

    public void slow(int op, long durationNanos, String thread, ThreadRole role, TopicPartition tp,
                     long bytes, String path, Throwable thrown) {
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
        warn.accept(format(op, durationNanos, thread, role, tp, bytes, path, thrown, dropped));
    }

    static String format(int op, long durationNanos, String thread, ThreadRole role, TopicPartition tp,
                         long bytes, String path, Throwable thrown, long dropped) {
        StringBuilder sb = new StringBuilder(160);
        sb.append("slow op=").append(OpKind.name(op))
            .append(" duration_ms=").append(String.format(Locale.ROOT, "%.3f", durationNanos / 1e6))
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
        if (dropped > 0) {
            sb.append(" (").append(dropped).append(" more slow ops not logged: over slow.log.per.minute)");
        }
        return sb.toString();
    }
}
