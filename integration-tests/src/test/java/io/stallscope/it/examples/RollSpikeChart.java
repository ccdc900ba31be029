package io.stallscope.it.examples;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * An SVG chart of the roll-spike experiment (docs/lab/mitigations.md, Experiment 1), from the per-round table
 * there: the producer's p99.9 and the agent's mean log_roll time, with and without roll-flush, per Kafka
 * version. Every round is a dot and the bar is the median, so the spread between rounds stays visible.
 */
final class RollSpikeChart {
    private static final String OFF = "#c0392b";
    private static final String ON = "#2471a3";

    /** One round; run names the table it came from (its heading), when the page has several runs. */
    record Round(String run, String kafka, boolean rollFlush, int round, double p999, double meanRoll) {
        String group() {
            return run.isEmpty() ? "Kafka " + kafka : "Kafka " + kafka + ", " + run;
        }
    }

    private RollSpikeChart() {
    }

    static List<Round> rounds(String mitigationsMd) {
        List<Round> out = new ArrayList<>();
        List<MarkdownTable.Table> tables = MarkdownTable.findAll(mitigationsMd, "| Kafka | roll-flush | round |");
        for (MarkdownTable.Table table : tables) {
            String run = tables.size() == 1 ? "" : runName(table.heading());
            for (Map<String, String> row : table.rows()) {
                out.add(new Round(run, row.get("Kafka"), row.get("roll-flush").equals("on"), Integer.parseInt(row.get("round")),
                    Double.parseDouble(row.get("p99.9 ms")), Double.parseDouble(row.get("mean roll ms"))));
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("no rounds in the roll-spike table");
        }
        return out;
    }

    /** A short name for a run from its heading: which machine it ran on, if the heading says. */
    static String runName(String heading) {
        String h = heading.toLowerCase(java.util.Locale.ROOT);
        if (h.contains("quiet")) {
            return "quiet machine";
        }
        if (h.contains("loaded")) {
            return "loaded machine";
        }
        return heading.length() > 24 ? heading.substring(0, 24) : heading;
    }

    static String svg(List<Round> rounds) {
        List<String> groups = rounds.stream().map(Round::group).distinct().toList();
        StringBuilder s = new StringBuilder();
        int width = Math.max(980, 140 + 220 * groups.size());
        int height = 800;
        s.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(width).append("\" height=\"").append(height)
            .append("\" viewBox=\"0 0 ").append(width).append(' ').append(height)
            .append("\" font-family=\"DejaVu Sans, Arial, sans-serif\" font-size=\"12\">\n");
        s.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        s.append(text(20, 26, 16, "bold", "start", "A segment roll's snapshot fsync, with and without mitigate=roll-flush"));
        s.append(text(20, 46, 12, "normal", "start", "Real brokers writing to a simulated slow disk (fsyncs delayed by an LD_PRELOAD shim)."
            + " Setup and numbers: docs/lab/mitigations.md (RollSpikeBenchIT)."));
        s.append(text(20, 62, 12, "normal", "start", "A dot per round; the bar and the number under it are the median."
            + " The latency axis is logarithmic."));
        panel(s, rounds, groups, 20, 90, width - 40, 320, "Producer p99.9 latency (ms, log scale)", Round::p999, true);
        panel(s, rounds, groups, 20, 440, width - 40, 320, "Partition lock held per roll: agent's mean log_roll (ms)", Round::meanRoll, false);
        s.append("<rect x=\"20\" y=\"").append(height - 22).append("\" width=\"12\" height=\"12\" fill=\"").append(OFF).append("\"/>");
        s.append(text(38, height - 12, 12, "normal", "start", "roll-flush off"));
        s.append("<rect x=\"140\" y=\"").append(height - 22).append("\" width=\"12\" height=\"12\" fill=\"").append(ON).append("\"/>");
        s.append(text(158, height - 12, 12, "normal", "start", "roll-flush on"));
        s.append("</svg>\n");
        return s.toString();
    }

    private static void panel(StringBuilder s, List<Round> rounds, List<String> groupNames, int x, int y, int w, int h,
                              String title, java.util.function.ToDoubleFunction<Round> value, boolean log) {
        int left = x + 50;
        int top = y + 24;
        int bottom = y + h - 50;
        int right = x + w;
        double maxValue = rounds.stream().mapToDouble(value).max().orElse(1);
        double max = log ? Math.pow(10, Math.ceil(Math.log10(Math.max(maxValue, 10)))) : niceMax(maxValue);
        java.util.function.DoubleUnaryOperator scale = log
            ? v -> Math.log10(Math.max(v, 1)) / Math.log10(max)
            : v -> v / max;
        s.append(text(x, y + 10, 13, "bold", "start", title));
        int ticks = log ? (int) Math.round(Math.log10(max)) : 4;
        for (int i = 0; i <= ticks; i++) {
            double v = log ? Math.pow(10, i) : max * i / 4;
            double py = bottom - (bottom - top) * scale.applyAsDouble(v);
            s.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", left, py, right, py));
            s.append(text(left - 6, (int) py + 4, 11, "normal", "end", fmt(v)));
        }
        int groups = groupNames.size() * 2;
        double slot = (double) (right - left) / groups;
        int g = 0;
        for (String group : groupNames) {
            for (boolean on : new boolean[] {false, true}) {
                List<Double> values = rounds.stream().filter(r -> r.group().equals(group) && r.rollFlush() == on)
                    .map(value::applyAsDouble).sorted(Comparator.naturalOrder()).toList();
                double cx = left + slot * (g + 0.5);
                String color = on ? ON : OFF;
                if (!values.isEmpty()) {
                    double median = values.get(values.size() / 2);
                    double by = bottom - (bottom - top) * scale.applyAsDouble(median);
                    s.append(String.format(Locale.ROOT,
                        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" fill-opacity=\"0.35\"/>\n",
                        cx - slot * 0.3, by, slot * 0.6, bottom - by, color));
                    s.append(text((int) cx, bottom + 30, 11, "bold", "middle", fmt(median)));
                    for (int i = 0; i < values.size(); i++) {
                        double py = bottom - (bottom - top) * scale.applyAsDouble(values.get(i));
                        s.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" data-value=\"%s\"/>\n",
                            cx + (i - (values.size() - 1) / 2.0) * 8, py, color, fmt(values.get(i))));
                    }
                }
                s.append(text((int) cx, bottom + 16, 11, "normal", "middle", on ? "on" : "off"));
                g++;
            }
            s.append(text((int) (left + slot * (g - 1)), bottom + 48, 12, "bold", "middle", group));
        }
        s.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", left, bottom, right, bottom));
    }

    private static double niceMax(double v) {
        double step = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[] {1, 2, 2.5, 5, 10}) {
            if (m * step >= v * 1.08) {
                return m * step;
            }
        }
        return 10 * step;
    }

    private static String fmt(double v) {
        return v == Math.rint(v) ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.1f", v);
    }

    private static String text(int x, int y, int size, String weight, String anchor, String content) {
        String escaped = content.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
        return String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"%d\" font-weight=\"%s\" text-anchor=\"%s\">%s</text>\n",
            x, y, size, weight, anchor, escaped);
    }
}
