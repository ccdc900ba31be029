package io.stallscope.agent.report;

import io.stallscope.agent.model.ThreadRole;
import io.stallscope.agent.model.TopicPartition;

/**
 * A slow-op line decided on the op's thread (within the budget, not folded into an enclosing op's line) and not yet
 * formatted: the formatting and the write into the broker's log happen later, off that thread.
 */
final class SlowOpLine {
    final int op;
    final long durationNanos;
    final String thread;
    final ThreadRole role;
    final TopicPartition tp;
    final long bytes;
    final String path;
    final Throwable thrown;
    final InnerOps inner;
    final long lockWaitNanos;

    SlowOpLine(int op, long durationNanos, String thread, ThreadRole role, TopicPartition tp, long bytes, String path,
               Throwable thrown, InnerOps inner, long lockWaitNanos) {
        this.op = op;
        this.durationNanos = durationNanos;
        this.thread = thread;
        this.role = role;
        this.tp = tp;
        this.bytes = bytes;
        this.path = path;
        this.thrown = thrown;
        this.inner = inner;
        this.lockWaitNanos = lockWaitNanos;
    }
}
