package io.stallscope.agent.model;

/**
 * How a queued task's wait ended when the task never ran: it was cancelled in its pool's queue. Handed to the sink as
 * the wait's failure, never thrown (no stack trace, one instance per cause): the wait is timed up to the cancel and
 * counted in {@code stallscope_op_errors_total}, its JFR event has {@code failed} set, and its slow line says
 * {@code failed=} with {@link #describe()} instead of an exception's class, so that an operator tells it from a wait
 * that ended in a read.
 */
public final class CancelledInQueue extends Throwable {
    private static final long serialVersionUID = 1L;

    /**
     * A remote read still queued for the remote-log-reader pool when its fetch gave up (remote.fetch.max.wait.ms; the
     * fetch's own max wait before that setting): Kafka's DelayedRemoteFetch.onExpiration cancelled its Future, and
     * RemoteLogReader.call never ran. No colon in the text: the line's ": " starts what the wait was behind.
     */
    public static final CancelledInQueue FETCH_EXPIRED = new CancelledInQueue("fetch_expired",
        "the fetch expired while the read was queued; the read was cancelled and never ran");

    private final String label;

    private CancelledInQueue(String label, String why) {
        super(why, null, false, false);
        this.label = label;
    }

    /** The value of the slow line's failed=, with why in parentheses. */
    public String describe() {
        return label + " (" + getMessage() + ")";
    }
}
