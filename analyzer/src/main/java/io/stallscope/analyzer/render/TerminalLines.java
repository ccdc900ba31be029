package io.stallscope.analyzer.render;

import java.io.PrintStream;
import java.util.List;

/**
 * Where the text report meets the terminal: every line goes out through here, escaped once ({@link TerminalText}),
 * so no string from the recording reaches the terminal raw whichever part of the report it is in.
 */
final class TerminalLines {
    private final PrintStream out;

    TerminalLines(PrintStream out) {
        this.out = out;
    }

    void line(String s) {
        out.println(TerminalText.escape(s));
    }

    void blank() {
        out.println();
    }

    /** {@code text} after {@code first}, folded to {@code width} under {@code indent}: escaped before folding, so widths are what shows. */
    void wrapped(String first, String indent, String text, int width) {
        List<String> lines = TextWrap.wrap(TerminalText.escape(first), indent, TerminalText.escape(text), width);
        for (String l : lines) out.println(l);
    }
}
