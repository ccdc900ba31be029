package io.stallscope.it.examples;

import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Prometheus's own parser on the examples: the alert rules and the compose Prometheus configuration
 * pass {@code promtool check}, and so does every dashboard query, checked as a recording rule.
 */
class PromtoolTest {

    @Test
    void alertRulesPassPromtool() throws Exception {
        Promtool.Result r = Promtool.require().run("check", "rules", Examples.file(ExampleQueries.RULES).toString());
        assertThat(r.exitCode()).as(r.output()).isZero();
        assertThat(r.output()).contains("SUCCESS: " + ExampleQueries.rules().size() + " rules found");
    }

    /** promtool's unit tests: for every alert, series that must fire it and series that must not. */
    @Test
    void alertRulesPassTheirUnitTests() throws Exception {
        Path tests = Examples.file(ExampleQueries.RULE_TESTS);
        Promtool.Result r = Promtool.require().run("test", "rules", tests.toString());
        assertThat(r.exitCode()).as(r.output()).isZero();
        assertThat(r.output()).contains("SUCCESS");
        Map<String, Object> file = new YAMLMapper().readValue(tests.toFile(), Map.class);
        Map<String, Boolean> fires = new LinkedHashMap<>();
        Map<String, Boolean> silent = new LinkedHashMap<>();
        for (Object test : (List<?>) file.get("tests")) {
            for (Object check : (List<?>) ((Map<?, ?>) test).get("alert_rule_test")) {
                Map<?, ?> c = (Map<?, ?>) check;
                String alert = (String) c.get("alertname");
                boolean any = c.get("exp_alerts") != null && !((List<?>) c.get("exp_alerts")).isEmpty();
                (any ? fires : silent).put(alert, true);
            }
        }
        for (ExampleQueries.Rule rule : ExampleQueries.rules()) {
            assertThat(fires).as(rule.alert() + " has a test where it fires").containsKey(rule.alert());
            assertThat(silent).as(rule.alert() + " has a test where it stays silent").containsKey(rule.alert());
        }
    }

    @Test
    void dashboardQueriesParseAsPromQl(@TempDir Path dir) throws Exception {
        List<Map<String, Object>> rules = new ArrayList<>();
        int n = 0;
        for (ExampleQueries.Query q : ExampleQueries.dashboard()) {
            Map<String, Object> rule = new LinkedHashMap<>();
            rule.put("record", "stallscope:dashboard_query_" + n++);
            // a Grafana matcher value such as "$instance" is a plain string to PromQL
            rule.put("expr", q.expr());
            rules.add(rule);
        }
        Path file = dir.resolve("dashboard-queries.yml");
        new YAMLMapper().writeValue(file.toFile(), Map.of("groups", List.of(Map.of("name", "dashboard", "rules", rules))));
        Promtool.Result r = Promtool.require().run("check", "rules", file.toString());
        assertThat(r.exitCode()).as(r.output() + "\n" + Files.readString(file)).isZero();
        assertThat(r.output()).contains("SUCCESS: " + n + " rules found");
    }

    @Test
    void composePrometheusConfigPassesPromtool() throws Exception {
        // --syntax-only: the rule file is named at its path inside the container.
        Promtool.Result r = Promtool.require().run("check", "config", "--syntax-only",
            Examples.file("compose/prometheus.yml").toString());
        assertThat(r.exitCode()).as(r.output()).isZero();
    }
}
