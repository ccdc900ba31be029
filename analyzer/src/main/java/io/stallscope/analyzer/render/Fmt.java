package io.stallscope.analyzer.render;

import java.util.Locale;

/** Number formats shared by the renderers. */
final class Fmt {
    private Fmt() {
    }

    static double ms(long nanos) {
        return Math.round(nanos / 1e4) / 100.0;
    }

    static String msText(long nanos) {
        return String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
    }
}
