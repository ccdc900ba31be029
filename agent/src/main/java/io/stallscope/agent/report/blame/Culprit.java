package io.stallscope.agent.report.blame;

import io.stallscope.agent.model.OpKind;

import java.util.Locale;

/** The op a slow op most likely waited behind: another thread's op that overlapped it on the same file, log or device. */
public final class Culprit {
    private final int op;
    private final String thread;
    private final String role;
    private final long durationNanos;
    private final boolean running;
    private final long overlapNanos;
    private final Scope scope;
    private final String fsType;
    /** What the culprit worked on, when its scope does not say (a remote read's partition), or null. */
    private final String of;
    /** Other threads that held the same pool at the time ({@link Scope#POOL}), beyond the one named. */
    private final int moreHolders;

    public Culprit(int op, String thread, String role, long durationNanos, boolean running, long overlapNanos, Scope scope,
            String fsType) {
        this(op, thread, role, durationNanos, running, overlapNanos, scope, fsType, null, 0);
    }

    public Culprit(int op, String thread, String role, long durationNanos, boolean running, long overlapNanos, Scope scope,
            String fsType, String of, int moreHolders) {
        this.op = op;
        this.thread = thread;
        this.role = role;
        this.durationNanos = durationNanos;
        this.running = running;
        this.overlapNanos = overlapNanos;
        this.scope = scope;
        this.fsType = fsType;
        this.of = of;
        this.moreHolders = moreHolders;
    }

    /** This culprit, with {@code more} other threads said to have held the same pool. */
    Culprit withMoreHolders(int more) {
        return new Culprit(op, thread, role, durationNanos, running, overlapNanos, scope, fsType, of, more);
    }

    public int op() {
        return op;
    }

    public String thread() {
        return thread;
    }

    /** The culprit thread's role label, as the metrics' role label. */
    public String role() {
        return role;
    }

    /** The culprit's duration, or its time so far when it was still running. */
    public long durationNanos() {
        return durationNanos;
    }

    public boolean running() {
        return running;
    }

    /** How long the two ops ran at the same time. */
    public long overlapNanos() {
        return overlapNanos;
    }

    public Scope scope() {
        return scope;
    }

    /**
     * The slow-op line's clause, e.g. {@code behind transfer_to 510.204 ms of the same file on network thread
     * "data-plane-kafka-network-thread-1-ListenerName(PLAINTEXT)-PLAINTEXT-0" (xfs), overlapping 420.001 ms}.
     */
    public String describe() {
        StringBuilder sb = new StringBuilder(160);
        sb.append("behind ").append(OpKind.name(op)).append(' ').append(millis(durationNanos)).append(" ms");
        if (running) {
            sb.append(" so far");
        }
        if (of != null) {
            sb.append(" of ").append(of);
        }
        sb.append(' ').append(scope.phrase()).append(" on ").append(role).append(" thread \"").append(thread)
            .append('"');
        if (fsType != null) {
            sb.append(" (").append(fsType).append(')');
        }
        sb.append(", overlapping ").append(millis(overlapNanos)).append(" ms");
        if (moreHolders > 0) {
            sb.append(", and ").append(moreHolders).append(moreHolders == 1 ? " more read" : " more reads")
                .append(" held the pool");
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return describe();
    }

    private static String millis(long nanos) {
        return String.format(Locale.ROOT, "%.3f", nanos / 1e6);
    }
}
