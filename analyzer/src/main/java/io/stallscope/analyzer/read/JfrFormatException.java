package io.stallscope.analyzer.read;

import java.io.IOException;

/** A recording that cannot be read as JFR; the message is shown to the operator as one line. */
public class JfrFormatException extends IOException {
    public JfrFormatException(String message) {
        super(message);
    }
}
