package io.stallscope.testcontainers;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A parser of Prometheus's text exposition format (0.0.4), written to its grammar: a line is blank, a
 * comment ({@code # HELP}, {@code # TYPE} or any other), or a sample
 * {@code name [ "{" label="value" { "," label="value" } [","] "}" ] value [ timestamp ]}, with label values
 * escaped by {@code \\}, {@code \"} and {@code \n}, values Go floats including {@code NaN} and
 * {@code +Inf}/{@code -Inf}. No Java library on Maven Central parses this format (the Prometheus Java
 * client only writes it), so this one reads character by character and fails on the first character that
 * the grammar does not allow, naming line and column.
 */
public final class PrometheusText {

    /** One sample line. */
    public static final class Sample {
        private final String name;
        private final Map<String, String> labels;
        private final double value;

        Sample(String name, Map<String, String> labels, double value) {
            this.name = name;
            this.labels = labels;
            this.value = value;
        }

        public String name() {
            return name;
        }

        public Map<String, String> labels() {
            return labels;
        }

        public double value() {
            return value;
        }

        @Override
        public String toString() {
            return name + labels + " " + value;
        }
    }

    private final List<Sample> samples;
    private final Map<String, String> types;

    private PrometheusText(List<Sample> samples, Map<String, String> types) {
        this.samples = samples;
        this.types = types;
    }

    public List<Sample> samples() {
        return samples;
    }

    /** Metric family name to its {@code # TYPE} (counter, gauge, histogram, summary, untyped). */
    public Map<String, String> types() {
        return types;
    }

    /** @throws IllegalArgumentException naming the line and column of the first thing the grammar does not allow */
    public static PrometheusText parse(String text) {
        List<Sample> samples = new ArrayList<>();
        Map<String, String> types = new LinkedHashMap<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            Line line = new Line(lines[i], i + 1);
            line.skipBlanks();
            if (line.atEnd()) {
                continue;
            }
            if (line.peek() == '#') {
                line.comment(types);
            } else {
                samples.add(line.sample());
            }
        }
        return new PrometheusText(Collections.unmodifiableList(samples), Collections.unmodifiableMap(types));
    }

    /** A cursor over one line. */
    private static final class Line {
        private final String s;
        private final int number;
        private int pos;

        Line(String s, int number) {
            this.s = s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
            this.number = number;
        }

        boolean atEnd() {
            return pos >= s.length();
        }

        char peek() {
            return s.charAt(pos);
        }

        void skipBlanks() {
            while (!atEnd() && (peek() == ' ' || peek() == '\t')) {
                pos++;
            }
        }

        void comment(Map<String, String> types) {
            pos++; // '#'
            skipBlanks();
            String keyword = token();
            if (keyword.equals("TYPE")) {
                skipBlanks();
                String name = metricName();
                skipBlanks();
                String type = token();
                if (!type.matches("counter|gauge|histogram|summary|untyped")) {
                    throw error("unknown metric type '" + type + "'");
                }
                types.put(name, type);
            }
            // HELP and other comments carry nothing a query needs
        }

        Sample sample() {
            String name = metricName();
            Map<String, String> labels = new LinkedHashMap<>();
            if (!atEnd() && peek() == '{') {
                pos++;
                skipBlanks();
                while (!atEnd() && peek() != '}') {
                    String label = labelName();
                    skipBlanks();
                    expect('=');
                    skipBlanks();
                    String value = quoted();
                    if (labels.put(label, value) != null) {
                        throw error("label " + label + " twice");
                    }
                    skipBlanks();
                    if (!atEnd() && peek() == ',') {
                        pos++;
                        skipBlanks();
                    } else {
                        break;
                    }
                }
                expect('}');
            }
            if (atEnd() || (peek() != ' ' && peek() != '\t')) {
                throw error("expected a blank before the value");
            }
            skipBlanks();
            double value = number(token());
            skipBlanks();
            if (!atEnd()) {
                String ts = token();
                try {
                    Long.parseLong(ts);
                } catch (NumberFormatException e) {
                    throw error("expected an integer timestamp, found '" + ts + "'");
                }
                skipBlanks();
                if (!atEnd()) {
                    throw error("unexpected text after the timestamp");
                }
            }
            return new Sample(name, Collections.unmodifiableMap(labels), value);
        }

        private String metricName() {
            return name(true, "a metric name");
        }

        private String labelName() {
            return name(false, "a label name");
        }

        /** [a-zA-Z_:][a-zA-Z0-9_:]* for metric names; label names are the same without ':'. */
        private String name(boolean colon, String what) {
            int start = pos;
            while (!atEnd()) {
                char c = peek();
                boolean ok = c == '_' || (colon && c == ':') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
                        || (pos > start && c >= '0' && c <= '9');
                if (!ok) {
                    break;
                }
                pos++;
            }
            if (pos == start) {
                throw error("expected " + what);
            }
            return s.substring(start, pos);
        }

        private String quoted() {
            expect('"');
            StringBuilder sb = new StringBuilder();
            while (true) {
                if (atEnd()) {
                    throw error("unterminated label value");
                }
                char c = s.charAt(pos++);
                if (c == '"') {
                    return sb.toString();
                }
                if (c == '\\') {
                    if (atEnd()) {
                        throw error("unterminated escape");
                    }
                    char e = s.charAt(pos++);
                    switch (e) {
                        case '\\': sb.append('\\'); break;
                        case '"': sb.append('"'); break;
                        case 'n': sb.append('\n'); break;
                        default: throw error("unknown escape \\" + e);
                    }
                } else {
                    sb.append(c);
                }
            }
        }

        private String token() {
            int start = pos;
            while (!atEnd() && peek() != ' ' && peek() != '\t') {
                pos++;
            }
            return s.substring(start, pos);
        }

        private double number(String t) {
            switch (t) {
                case "NaN": return Double.NaN;
                case "+Inf": case "Inf": return Double.POSITIVE_INFINITY;
                case "-Inf": return Double.NEGATIVE_INFINITY;
                default:
                    // Go's float syntax, minus hex floats and digit separators, which exposition never uses
                    if (t.isEmpty() || !t.matches("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?")) {
                        throw error("expected a number, found '" + t + "'");
                    }
                    return Double.parseDouble(t);
            }
        }

        private void expect(char c) {
            if (atEnd() || peek() != c) {
                throw error("expected '" + c + "'");
            }
            pos++;
        }

        private IllegalArgumentException error(String what) {
            return new IllegalArgumentException("Prometheus text, line " + number + " column " + (pos + 1) + ": " + what
                    + ": " + s);
        }
    }
}
