package io.stallscope.it.demo;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The agent's op latencies as a terminal table: count, p50, p99 and max per op and thread role, with
 * the rows whose longest op reached {@code slow} marked. Percentiles read "<=" because they are bucket
 * upper bounds.
 */
public final class OpTable {
    static final String HEADER = String.format(Locale.ROOT, "%-17s %-16s %8s %9s %9s %9s", "op", "role", "count",
        "p50<=", "p99<=", "max");

    private OpTable() {
    }

    public static String format(List<OpHistograms.Row> rows, Duration slow) {
        StringBuilder sb = new StringBuilder(HEADER).append('\n');
        if (rows.isEmpty()) {
            sb.append("(no instrumented op yet)\n");
        }
        double slowSeconds = slow.toNanos() / 1e9;
        for (OpHistograms.Row r : rows) {
            String max = (r.maxExact() ? "" : "<=") + human(r.max());
            sb.append(String.format(Locale.ROOT, "%-17s %-16s %8d %9s %9s %9s%s%n", r.op(), r.role(), r.count(),
                human(r.p50()), human(r.p99()), max, r.max() >= slowSeconds ? "  << slow" : ""));
        }
        return sb.toString();
    }

    static String human(double seconds) {
        if (Double.isNaN(seconds)) {
            return "-";
        }
        if (Double.isInfinite(seconds)) {
            return ">10s";
        }
        if (seconds < 1e-3) {
            return String.format(Locale.ROOT, "%.0fus", seconds * 1e6);
        }
        if (seconds < 1) {
            return String.format(Locale.ROOT, seconds < 0.01 ? "%.1fms" : "%.0fms", seconds * 1e3);
        }
        return String.format(Locale.ROOT, "%.2fs", seconds);
    }
}
