package io.stallscope.agent.config;

import java.util.function.Function;

/**
 * One option the agent understands: its key, default, a one-line description for the README table
 * (generated from {@link Options#ALL}) and how its value is checked.
 */
public final class OptionSpec {
    private final String key;
    private final String defaultValue;
    private final String description;
    private final Function<String, Object> parser;

    OptionSpec(String key, String defaultValue, String description, Function<String, Object> parser) {
        this.key = key;
        this.defaultValue = defaultValue;
        this.description = description;
        this.parser = parser;
    }

    public String key() {
        return key;
    }

    public String defaultValue() {
        return defaultValue;
    }

    public String description() {
        return description;
    }

    /** Parses and checks a value; throws IllegalArgumentException with a message fit for one line. */
    Object parse(String value) {
        return parser.apply(value.trim());
    }
}
