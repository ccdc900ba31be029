package io.stallscope.it.examples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Every PromQL query of the examples: the Grafana dashboard's panels and variables, and the alert rules. */
final class ExampleQueries {
    static final String DASHBOARD = "grafana/dashboards/stallscope.json";
    static final String RULES = "prometheus/stallscope-alerts.yml";
    static final String RULE_TESTS = "prometheus/stallscope-alerts-test.yml";
    /** Where the alerts' runbook_url point: the guide's pages, by their path in the repository. */
    static final String DOCS_URL = "https://github.com/stallscope/stallscope/blob/main/";

    /**
     * Grafana's variables as the dashboard would fill them in: $__rate_interval becomes a duration,
     * $instance (inside a matcher's string) stays for {@link QueryCheck} to skip.
     */
    private static final Map<String, String> GRAFANA_VARIABLES = Map.of(
        "$__rate_interval", "1m", "$__interval", "15s", "$__range", "1h");

    /** A query and where it is; legend names the series labels its display uses ({{label}}), if any. */
    record Query(String where, String expr, String legend) {
    }

    record Rule(String alert, String expr, String forDuration, Map<String, String> labels, Map<String, String> annotations) {
    }

    private ExampleQueries() {
    }

    static List<Query> dashboard() throws IOException {
        JsonNode dash = new ObjectMapper().readTree(Examples.file(DASHBOARD).toFile());
        List<Query> out = new ArrayList<>();
        collectPanels(dash.path("panels"), out);
        for (JsonNode v : dash.path("templating").path("list")) {
            if (v.path("type").asText().equals("query")) {
                String q = v.path("query").isObject() ? v.path("query").path("query").asText() : v.path("query").asText();
                out.add(new Query("variable " + v.path("name").asText(), labelValuesSelector(q), ""));
            }
        }
        return out;
    }

    private static void collectPanels(JsonNode panels, List<Query> out) {
        for (JsonNode p : panels) {
            for (JsonNode t : p.path("targets")) {
                out.add(new Query("panel '" + p.path("title").asText() + "' " + t.path("refId").asText(),
                    fillVariables(t.path("expr").asText()), t.path("legendFormat").asText("")));
            }
            collectPanels(p.path("panels"), out); // panels inside collapsed rows
        }
    }

    /** label_values(SELECTOR, label) is Grafana's, not PromQL: check its selector, grouped by the label. */
    private static String labelValuesSelector(String q) {
        String inner = q.trim();
        if (!inner.startsWith("label_values(") || !inner.endsWith(")")) {
            throw new IllegalArgumentException("unexpected variable query: " + q);
        }
        inner = inner.substring("label_values(".length(), inner.length() - 1);
        int comma = inner.lastIndexOf(',');
        return "count by (" + inner.substring(comma + 1).trim() + ") (" + inner.substring(0, comma).trim() + ")";
    }

    static String fillVariables(String expr) {
        String out = expr;
        for (Map.Entry<String, String> e : GRAFANA_VARIABLES.entrySet()) {
            out = out.replace(e.getKey(), e.getValue());
        }
        return out;
    }

    static List<Rule> rules() throws IOException {
        return rules(Examples.file(RULES));
    }

    static List<Rule> rules(Path file) throws IOException {
        JsonNode doc = new YAMLMapper().readTree(file.toFile());
        List<Rule> out = new ArrayList<>();
        for (JsonNode group : doc.path("groups")) {
            for (JsonNode r : group.path("rules")) {
                out.add(new Rule(r.path("alert").asText(null), r.path("expr").asText(), r.path("for").asText(null),
                    strings(r.path("labels")), strings(r.path("annotations"))));
            }
        }
        return out;
    }

    static List<Query> ruleQueries() throws IOException {
        List<Query> out = new ArrayList<>();
        for (Rule r : rules()) {
            out.add(new Query("alert " + r.alert(), r.expr(), String.join(" ", r.annotations().values())));
        }
        return out;
    }

    private static Map<String, String> strings(JsonNode node) {
        Map<String, String> out = new java.util.LinkedHashMap<>();
        node.fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().asText()));
        return out;
    }
}
