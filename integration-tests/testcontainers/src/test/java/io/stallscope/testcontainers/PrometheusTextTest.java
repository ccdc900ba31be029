package io.stallscope.testcontainers;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PrometheusTextTest {

    /** The example of Prometheus's exposition-format documentation (text format 0.0.4), as published. */
    static final String EXPOSITION_EXAMPLE = String.join("\n",
            "# HELP http_requests_total The total number of HTTP requests.",
            "# TYPE http_requests_total counter",
            "http_requests_total{method=\"post\",code=\"200\"} 1027 1395066363000",
            "http_requests_total{method=\"post\",code=\"400\"}    3 1395066363000",
            "",
            "# Escaping in label values:",
            "msdos_file_access_time_seconds{path=\"C:\\\\DIR\\\\FILE.TXT\",error=\"Cannot find file:\\n\\\"FILE.TXT\\\"\"} 1.458255915e9",
            "",
            "# Minimalistic line:",
            "metric_without_timestamp_and_labels 12.47",
            "",
            "# A weird metric from before the epoch:",
            "something_weird{problem=\"division by zero\"} +Inf -3982045",
            "",
            "# A histogram, which has a pretty complex representation in the text format:",
            "# HELP http_request_duration_seconds A histogram of the request duration.",
            "# TYPE http_request_duration_seconds histogram",
            "http_request_duration_seconds_bucket{le=\"0.05\"} 24054",
            "http_request_duration_seconds_bucket{le=\"0.1\"} 33444",
            "http_request_duration_seconds_bucket{le=\"0.2\"} 100392",
            "http_request_duration_seconds_bucket{le=\"0.5\"} 129389",
            "http_request_duration_seconds_bucket{le=\"1\"} 133988",
            "http_request_duration_seconds_bucket{le=\"+Inf\"} 144320",
            "http_request_duration_seconds_sum 53423",
            "http_request_duration_seconds_count 144320",
            "",
            "# Finally a summary, which has a complex representation, too:",
            "# HELP rpc_duration_seconds A summary of the RPC duration in seconds.",
            "# TYPE rpc_duration_seconds summary",
            "rpc_duration_seconds{quantile=\"0.01\"} 3102",
            "rpc_duration_seconds{quantile=\"0.05\"} 3272",
            "rpc_duration_seconds{quantile=\"0.5\"} 4773",
            "rpc_duration_seconds{quantile=\"0.9\"} 9001",
            "rpc_duration_seconds{quantile=\"0.99\"} 76656",
            "rpc_duration_seconds_sum 1.7560473e+07",
            "rpc_duration_seconds_count 2693",
            "");

    @Test
    void readsTheExpositionFormatDocumentationExample() {
        PrometheusText t = PrometheusText.parse(EXPOSITION_EXAMPLE);

        assertThat(t.samples()).hasSize(20);
        assertThat(t.types()).containsEntry("http_requests_total", "counter")
                .containsEntry("http_request_duration_seconds", "histogram")
                .containsEntry("rpc_duration_seconds", "summary");
        PrometheusText.Sample first = t.samples().get(0);
        assertThat(first.name()).isEqualTo("http_requests_total");
        assertThat(first.labels()).containsExactly(Map.entry("method", "post"), Map.entry("code", "200"));
        assertThat(first.value()).isEqualTo(1027);
        assertThat(t.samples().get(1).value()).isEqualTo(3);
        PrometheusText.Sample escaped = t.samples().get(2);
        assertThat(escaped.labels()).containsEntry("path", "C:\\DIR\\FILE.TXT")
                .containsEntry("error", "Cannot find file:\n\"FILE.TXT\"");
        assertThat(escaped.value()).isEqualTo(1.458255915e9);
        assertThat(t.samples().get(3).labels()).isEmpty();
        assertThat(t.samples().get(4).value()).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(t.samples().get(10).labels()).containsEntry("le", "+Inf");
        assertThat(t.samples().get(19).value()).isEqualTo(2693);
    }

    @Test
    void takesATrailingCommaAndNaN() {
        PrometheusText t = PrometheusText.parse("a{x=\"1\",} NaN\nb -Inf\n");
        assertThat(t.samples().get(0).labels()).containsExactly(Map.entry("x", "1"));
        assertThat(t.samples().get(0).value()).isNaN();
        assertThat(t.samples().get(1).value()).isEqualTo(Double.NEGATIVE_INFINITY);
    }

    @Test
    void namesLineAndColumnOfWhatTheGrammarRefuses() {
        for (String bad : List.of("a{x=1} 2", "a{x=\"1\" 2", "a 1x", "a{x=\"\\t\"} 1", "a 1 2 3", "9a 1",
                "a{x=\"1\",x=\"2\"} 1", "# TYPE a thing", "a{x=\"1\"}2")) {
            assertThatThrownBy(() -> PrometheusText.parse("ok 1\n" + bad))
                    .as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("Prometheus text, line 2 column ");
        }
    }
}
