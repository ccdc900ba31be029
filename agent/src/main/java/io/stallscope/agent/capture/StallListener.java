package io.stallscope.agent.capture;

import io.stallscope.agent.model.TopicPartition;

/** Told by the op recorder, on the broker's own thread, when an op took longer than its capture trigger. */
public interface StallListener {
    /** Must return at once: it runs on the thread that just stalled (a request handler under a lock). */
    void stalled(int op, long durationNanos, String threadName, TopicPartition partition);
}
