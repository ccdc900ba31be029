package io.stallscope.it.examples;

import io.stallscope.it.broker.PrometheusScrape;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PromQlTest {

    @Test
    void findsSelectorsMatchersAndGroupingLabels() {
        PromQl.Query q = PromQl.parse("histogram_quantile(0.99, sum by (instance, le) "
            + "(rate(stallscope_op_seconds_bucket{op=\"transfer_to\", role=~'network|controller'}[5m]))) > 0.05"
            + " and on(instance) sum without (op) (rate(stallscope_slow_ops_total[1m:15s])) > 0");
        assertThat(q.selectors()).containsExactly(
            new PromQl.Selector("stallscope_op_seconds_bucket", List.of(
                new PromQl.Matcher("op", "=", "transfer_to"), new PromQl.Matcher("role", "=~", "network|controller"))),
            new PromQl.Selector("stallscope_slow_ops_total", List.of()));
        assertThat(q.groupingLabels()).containsExactly("instance", "le", "op");
    }

    @Test
    void aggregationWithByAfterTheArgumentAndNameMatcher() {
        PromQl.Query q = PromQl.parse("sum(rate({__name__=\"stallscope_op_seconds_count\", op!=\"x\"}[5m])) by (role) offset 5m");
        assertThat(q.selectors()).extracting(PromQl.Selector::metric).containsExactly("stallscope_op_seconds_count");
        assertThat(q.groupingLabels()).containsExactly("role");
    }

    @Test
    void rejectsWhatItCannotRead() {
        assertThatThrownBy(() -> PromQl.parse("rate(x{op=\"a\"[5m])")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PromQl.parse("rate(x{op=\"a}[5m])")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PromQl.parse("rate(x[$__rate_interval])")).hasMessageContaining("unexpected '$'");
    }

    @Test
    void queryCheckNamesUnservedMetricsLabelsAndValues() {
        PrometheusScrape scrape = PrometheusScrape.parse(String.join("\n",
            "# TYPE stallscope_op_seconds histogram",
            "stallscope_op_seconds_bucket{op=\"transfer_to\",role=\"network\",le=\"+Inf\"} 3.0",
            "stallscope_op_seconds_count{op=\"transfer_to\",role=\"network\"} 3.0", ""));
        assertThat(QueryCheck.problems("q", "sum by (instance, le) (rate(stallscope_op_seconds_bucket{op=\"transfer_to\","
            + " role=\"network\", instance=~\"$instance\"}[5m]))", scrape)).isEmpty();
        assertThat(QueryCheck.problems("q", "rate(stallscope_op_seconds_bucket{role=\"networks\"}[5m])", scrape))
            .singleElement().asString().contains("never has role=\"networks\"");
        assertThat(QueryCheck.problems("q", "rate(stallscope_op_seconds_bucket{thread=\"x\"}[5m])", scrape))
            .singleElement().asString().contains("has no label thread");
        assertThat(QueryCheck.problems("q", "rate(stallscope_op_seconds_total[5m])", scrape))
            .singleElement().asString().contains("stallscope_op_seconds_total is not served");
        assertThat(QueryCheck.problems("q", "sum by (topic) (stallscope_op_seconds_count)", scrape))
            .singleElement().asString().contains("groups by topic");
        assertThat(QueryCheck.problems("q", "stallscope_op_seconds_count{op=~\"transfer.*\"}", scrape))
            .singleElement().asString().contains("not a value or list of values");
    }
}
