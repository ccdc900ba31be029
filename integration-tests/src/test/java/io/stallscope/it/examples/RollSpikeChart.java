package io.stallscope.it.examples;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * An SVG chart of the roll-spike experiment (docs/mitigations.md, Experiment 1), from the per-round table
 * there: the producer's p99.9 and the agent's mean log_roll time, with and without roll-flush, per Kafka
 * version. Every round is a dot and the bar is the median, so the spread between rounds stays visible.
 */
final class RollSpikeChart {
    private static final String OFF = "#c0392b";
    private static final String ON = "#2471a3";

    record Round(String kafka, boolean rollFlush, int round, double p999, double meanRoll) {
    }

    private RollSpikeChart() {
    }

    static List<Round> rounds(String mitigationsMd) {
        List<Round> out = new ArrayList<>();
        for (Map<String, String> row : MarkdownTable.find(mitigationsMd, "| Kafka | roll-flush | round |")) {
            out.add(new Round(row.get("Kafka"), row.get("roll-flush").equals("on"), Integer.parseInt(row.get("round")),
                Double.parseDouble(row.get("p99.9 ms")), Double.parseDouble(row.get("mean roll ms"))));
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("no rounds in the roll-spike table");
        }
        return out;
    }

    static String svg(List<Round> rounds) {
        List<String> versions = rounds.stream().map(Round::kafka).distinct().toList();
        StringBuilder s = new StringBuilder();
        int width = 980;
        int height = 450;
        s.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(width).append("\" height=\"").append(height)
            .append("\" viewBox=\"0 0 ").append(width).append(' ').append(height)
            .append("\" font-family=\"DejaVu Sans, Arial, sans-serif\" font-size=\"12\">\n");
        s.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        s.append(text(20, 26, 16, "bold", "start", "A segment roll's snapshot fsync, with and without mitigate=roll-flush"));
        s.append(text(20, 46, 12, "normal", "start", "Real brokers writing to a simulated slow disk (fsyncs delayed by an LD_PRELOAD"
            + " shim). Setup and numbers: docs/mitigations.md, the roll-spike experiment (RollSpikeBenchIT)."));
        s.append(text(20, 62, 12, "normal", "start", "A dot per round; the bar and the number under it are the median."));
        panel(s, rounds, versions, 20, 90, 450, 300, "Producer p99.9 latency (ms)", Round::p999);
        panel(s, rounds, versions, 510, 90, 450, 300, "Partition lock held per roll: agent's mean log_roll (ms)", Round::meanRoll);
        s.append("<rect x=\"20\" y=\"").append(height - 22).append("\" width=\"12\" height=\"12\" fill=\"").append(OFF).append("\"/>");
        s.append(text(38, height - 12, 12, "normal", "start", "roll-flush off"));
        s.append("<rect x=\"140\" y=\"").append(height - 22).append("\" width=\"12\" height=\"12\" fill=\"").append(ON).append("\"/>");
        s.append(text(158, height - 12, 12, "normal", "start", "roll-flush on"));
        s.append("</svg>\n");
        return s.toString();
    }

    private static void panel(StringBuilder s, List<Round> rounds, List<String> versions, int x, int y, int w, int h,
                              String title, java.util.function.ToDoubleFunction<Round> value) {
        int left = x + 50;
        int top = y + 24;
        int bottom = y + h - 50;
        int right = x + w;
        double max = niceMax(rounds.stream().mapToDouble(value).max().orElse(1));
        s.append(text(x, y + 10, 13, "bold", "start", title));
        for (int i = 0; i <= 4; i++) {
            double v = max * i / 4;
            double py = bottom - (bottom - top) * v / max;
            s.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", left, py, right, py));
            s.append(text(left - 6, (int) py + 4, 11, "normal", "end", fmt(v)));
        }
        int groups = versions.size() * 2;
        double slot = (double) (right - left) / groups;
        int g = 0;
        for (String version : versions) {
            for (boolean on : new boolean[] {false, true}) {
                List<Double> values = rounds.stream().filter(r -> r.kafka().equals(version) && r.rollFlush() == on)
                    .map(value::applyAsDouble).sorted(Comparator.naturalOrder()).toList();
                double cx = left + slot * (g + 0.5);
                String color = on ? ON : OFF;
                if (!values.isEmpty()) {
                    double median = values.get(values.size() / 2);
                    double by = bottom - (bottom - top) * median / max;
                    s.append(String.format(Locale.ROOT,
                        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" fill-opacity=\"0.35\"/>\n",
                        cx - slot * 0.3, by, slot * 0.6, bottom - by, color));
                    s.append(text((int) cx, bottom + 30, 11, "bold", "middle", fmt(median)));
                    for (int i = 0; i < values.size(); i++) {
                        double py = bottom - (bottom - top) * values.get(i) / max;
                        s.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" data-value=\"%s\"/>\n",
                            cx + (i - (values.size() - 1) / 2.0) * 8, py, color, fmt(values.get(i))));
                    }
                }
                s.append(text((int) cx, bottom + 16, 11, "normal", "middle", on ? "on" : "off"));
                g++;
            }
            s.append(text((int) (left + slot * (g - 1)), bottom + 48, 12, "bold", "middle", "Kafka " + version));
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
