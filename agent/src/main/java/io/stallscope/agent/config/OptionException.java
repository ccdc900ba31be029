package io.stallscope.agent.config;

/** A bad option. Its message is the one line the operator sees. */
public final class OptionException extends Exception {
    public OptionException(String message) {
        super(message);
    }
}
