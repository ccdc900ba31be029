package io.stallscope.agent.report;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.model.ThreadRole;
import io.stallscope.agent.model.TopicPartition;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class OpMetricsTest {
    @Test
    void topicLabelsAreCappedAndTheRestGoToOther() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        OpMetrics metrics = new OpMetrics(registry, true, 1); // room for 1 x 11 op series
        int role = ThreadRole.REQUEST_HANDLER.ordinal();
        for (int p = 0; p < 30; p++) {
            metrics.recordTopic(Op.RECORDS_APPEND, role, new TopicPartition("orders", p), 1_000_000);
        }
        String scrape = registry.scrape();
        assertThat(scrape).contains("stallscope_op_topic_seconds_count{op=\"records_append\",partition=\"0\","
            + "role=\"request_handler\",topic=\"orders\"} 1");
        assertThat(scrape).contains("topic=\"_other\"");
        long series = scrape.lines().filter(l -> l.startsWith("stallscope_op_topic_seconds_count")).count();
        assertThat(series).isLessThanOrEqualTo(Op.COUNT + 1);
        assertThat(scrape.lines().filter(l -> l.startsWith("stallscope_op_topic_seconds_count")
            && l.contains("_other")).findFirst().orElseThrow()).endsWith(" " + (30 - (series - 1)));
    }

    @Test
    void histogramsAreServedInTheRegistrysScrape() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        OpMetrics metrics = new OpMetrics(registry, false, 100);
        metrics.record(Op.TRANSFER_TO, ThreadRole.NETWORK.ordinal(), 30_000_000L, 65536, false);
        String scrape = registry.scrape();
        assertThat(scrape).contains("# TYPE stallscope_op_seconds histogram")
            .contains("stallscope_op_seconds_bucket{op=\"transfer_to\",role=\"network\",le=\"0.025\"} 0")
            .contains("stallscope_op_seconds_bucket{op=\"transfer_to\",role=\"network\",le=\"0.05\"} 1")
            .contains("stallscope_op_seconds_count{op=\"transfer_to\",role=\"network\"} 1")
            .contains("stallscope_op_seconds_max{op=\"transfer_to\",role=\"network\"} 0.03")
            .contains("stallscope_op_bytes_total{op=\"transfer_to\",role=\"network\"} 65536.0");
    }
}
