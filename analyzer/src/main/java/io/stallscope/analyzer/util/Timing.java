package io.stallscope.analyzer.util;

import java.io.PrintStream;
import java.util.Locale;

/**
 * Elapsed time per phase, printed on stderr with {@code -Dstallscope.timing=true} (for benchmarks): one line
 * per step that took long enough to matter.
 */
public final class Timing {
    private static final boolean ON = Boolean.getBoolean("stallscope.timing");
    private final String what;
    private final StringBuilder line = new StringBuilder();
    private long last = System.nanoTime();

    private Timing(String what) {
        this.what = what;
    }

    /** Whether {@code -Dstallscope.timing=true} asked for the phase lines. */
    public static boolean enabled() {
        return ON;
    }

    public static Timing start(String what) {
        return new Timing(what);
    }

    /** The step that ended now. */
    public void step(String name) {
        if (!ON) return;
        long now = System.nanoTime();
        line.append(line.length() == 0 ? "" : ", ").append(name).append(' ')
                .append(String.format(Locale.ROOT, "%.2f", (now - last) / 1e9));
        last = now;
    }

    public void print(PrintStream err) {
        if (ON) err.println("analyzer: timing: " + what + ": " + line + " s");
    }
}
