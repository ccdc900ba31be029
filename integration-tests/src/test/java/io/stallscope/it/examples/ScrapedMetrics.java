package io.stallscope.it.examples;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A scrape of the agent's Prometheus endpoint: every series with its labels and value. */
final class ScrapedMetrics {
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})?\\s+(\\S+)");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    record Series(String name, Map<String, String> labels, double value) {
    }

    private final String text;
    private final List<Series> series;

    private ScrapedMetrics(String text, List<Series> series) {
        this.text = text;
        this.series = series;
    }

    static ScrapedMetrics scrape(int port) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create("http://127.0.0.1:" + port + "/metrics").toURL().openConnection();
        c.setConnectTimeout(3000);
        c.setReadTimeout(10000);
        try (InputStream in = c.getInputStream()) {
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } finally {
            c.disconnect();
        }
    }

    static ScrapedMetrics parse(String text) {
        List<Series> out = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.startsWith("#") || line.isBlank()) {
                continue;
            }
            Matcher m = SAMPLE.matcher(line);
            if (!m.find()) {
                throw new IllegalArgumentException("not a sample line: " + line);
            }
            Map<String, String> labels = new LinkedHashMap<>();
            if (m.group(2) != null) {
                Matcher l = LABEL.matcher(m.group(2));
                while (l.find()) {
                    labels.put(l.group(1), l.group(2).replace("\\\"", "\"").replace("\\\\", "\\"));
                }
            }
            out.add(new Series(m.group(1), Collections.unmodifiableMap(labels), Double.parseDouble(m.group(3))));
        }
        return new ScrapedMetrics(text, List.copyOf(out));
    }

    boolean has(String name) {
        return series.stream().anyMatch(s -> s.name().equals(name));
    }

    List<Series> series(String name) {
        return series.stream().filter(s -> s.name().equals(name)).toList();
    }

    Set<String> labelNames(String name) {
        Set<String> out = new TreeSet<>();
        series(name).forEach(s -> out.addAll(s.labels().keySet()));
        return out;
    }

    Set<String> labelValues(String name, String label) {
        Set<String> out = new TreeSet<>();
        series(name).forEach(s -> {
            if (s.labels().containsKey(label)) {
                out.add(s.labels().get(label));
            }
        });
        return out;
    }

    String text() {
        return text;
    }
}
