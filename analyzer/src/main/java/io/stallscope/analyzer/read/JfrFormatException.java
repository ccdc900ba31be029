package io.stallscope.analyzer.read;

import java.io.IOException;

/** A recording that cannot be read as JFR; the message is shown to the operator as one line. */
public class JfrFormatException extends IOException {
    public JfrFormatException(String message) {
        super(oneLine(message));
    }

    /** Messages may quote bytes from the file: keep them to one printable line of bounded length. */
    static String oneLine(String s) {
        if (s == null) return "corrupt recording";
        String t = s.replaceAll("[\\p{Cntrl}\\u2028\\u2029]", "?");
        return t.length() > 200 ? t.substring(0, 200) + "..." : t;
    }
}
