package io.stallscope.agent.logdir;

/** Told of each log dir once, when the agent first knows it; closed on detach. */
public interface LogDirListener {
    void learned(LogDirInfo info);

    default void close() {
    }
}
