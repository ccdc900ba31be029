package io.stallscope.analyzer.analysis.holders;

import io.stallscope.analyzer.model.Safepoint;
import io.stallscope.analyzer.util.Counts;
import io.stallscope.analyzer.util.Durations;

/**
 * A safepoint whose sync was slow, and what held it up, link by link: the stop itself (always recorded: the JVM's
 * or the agent's event), the thread that held it up ({@code holder}, null when nothing identifies one) and what that
 * thread was doing ({@code doing}, null when unknown). Each link says whether the recording says so or samples suggest it.
 * {@code holderThread}: the holder's thread id, -1 when none is named or the agent named a thread the recording has
 * no other trace of. {@code unknown}: with no holder, why none is named; null otherwise.
 */
public record SlowSafepoint(Safepoint safepoint, Link stop, Link holder, int holderThread, Link doing, String unknown) {

    /** Whether the recording says it (an event: the JVM's or the agent's) or it is deduced from samples. */
    public enum Source {
        RECORDED, INFERRED;

        public String label() {
            return this == RECORDED ? "recorded" : "inferred";
        }
    }

    /** One link: what it says ("data-plane-kafka-request-handler-2", "in a page fault on ..."), its source, and why. */
    public record Link(String text, Source source, String basis) {
    }

    /**
     * "60 threads stopped 212.3 ms at a safepoint (G1CollectFull) held up by thread data-plane-kafka-request-handler-2
     * [recorded: ...] in an index read (index_lookup) of /data/orders-3/0.index [recorded: ...]".
     */
    public String sentence() {
        Safepoint s = safepoint;
        String who = s.threads() > 0 ? Counts.of(s.threads(), "thread") : "every thread";
        StringBuilder sb = new StringBuilder(who).append(" stopped ").append(Durations.text(s.syncNanos()))
                .append(" at a safepoint (").append(s.operation() == null ? "VM operation unknown" : s.operation()).append(')');
        if (holder == null) {
            return sb.append(' ').append(tag(stop)).append("; the thread holding it up is unknown: ").append(unknown).toString();
        }
        sb.append(" held up by thread ").append(holder.text());
        // One tag for both links when one piece of evidence says both (samples, or the agent's one event).
        if (doing == null) return sb.append(' ').append(tag(holder)).toString();
        if (doing.source() == holder.source() && doing.basis().equals(holder.basis())) {
            return sb.append(' ').append(doing.text()).append(' ').append(tag(doing)).toString();
        }
        return sb.append(' ').append(tag(holder)).append(' ').append(doing.text()).append(' ').append(tag(doing)).toString();
    }

    /** "[recorded: agent's stallscope.SafepointSync]". */
    static String tag(Link l) {
        return "[" + l.source().label() + ": " + l.basis() + "]";
    }
}
