package io.stallscope.agent.capture;

/** async-profiler cannot run in this JVM; the message is one line saying why. */
final class ProfilerUnavailableException extends Exception {
    ProfilerUnavailableException(String message) {
        super(message);
    }
}
