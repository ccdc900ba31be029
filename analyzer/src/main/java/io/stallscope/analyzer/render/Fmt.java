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

    /** "1 wait", "2 waits": the count and the noun in agreement (nouns that take an s). */
    static String count(long n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }
}
