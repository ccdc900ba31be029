package io.stallscope.analyzer.render;

import java.util.Locale;

/** Number formats shared by the renderers. */
final class Fmt {
    private Fmt() {
    }

    /** A share in whole percent that never rounds a part to nothing or to everything. */
    static String pct(long n, long total) {
        double p = 100.0 * n / total;
        return p < 1 ? "<1%" : p > 99 && n < total ? ">99%" : String.format(Locale.ROOT, "%.0f%%", p);
    }
}
