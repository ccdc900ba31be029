package io.stallscope.analyzer.util;

import java.util.Locale;

/** Counts as the reports print them: grouped by thousands ("83,081,268 lock events"), the noun agreeing. */
public final class Counts {
    private Counts() {
    }

    /** "1 wait", "2 waits", "20,991,198 waits" (nouns that take an s). */
    public static String of(long n, String noun) {
        return String.format(Locale.ROOT, "%,d %s%s", n, noun, n == 1 ? "" : "s");
    }
}
