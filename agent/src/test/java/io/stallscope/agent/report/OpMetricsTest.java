package io.stallscope.agent.report;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.model.OpKind;
import io.stallscope.agent.model.ThreadRole;
import io.stallscope.agent.model.TopicPartition;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class OpMetricsTest {
    @Test
    void topicLabelsMaxCountsTopicPartitionsNotSeriesAndTheRestGoToOther() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        OpMetrics metrics = new OpMetrics(registry, true, 2);
        int handler = ThreadRole.REQUEST_HANDLER.ordinal();
        for (int p = 0; p < 30; p++) {
            // three ops on each partition: a cap on (op, role, partition) keys would label fewer partitions
            metrics.recordTopic(Op.RECORDS_APPEND, handler, new TopicPartition("orders", p), 1_000_000);
            metrics.recordTopic(Op.INDEX_RESIZE, handler, new TopicPartition("orders", p), 1_000_000);
            metrics.recordTopic(Op.LOG_ROLL, handler, new TopicPartition("orders", p), 1_000_000);
        }
        String scrape = registry.scrape();
        List<String> counts = new ArrayList<>();
        scrape.lines().filter(l -> l.startsWith("stallscope_op_topic_seconds_count")).forEach(counts::add);
        for (String op : new String[] {"records_append", "index_resize", "log_roll"}) {
            for (int p = 0; p < 2; p++) {
                assertThat(scrape).contains("stallscope_op_topic_seconds_count{op=\"" + op + "\",partition=\"" + p
                    + "\",role=\"request_handler\",topic=\"orders\"} 1");
            }
            assertThat(scrape).contains("stallscope_op_topic_seconds_count{op=\"" + op + "\",partition=\"\","
                + "role=\"request_handler\",topic=\"_other\"} 28");
        }
        assertThat(counts).hasSize(3 * 3);
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

    @Test
    void aFreshRegistryHasSeriesOnlyForTheRolesEachOpIsDeclaredToRunOn() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new OpMetrics(registry, false, 100);
        String scrape = registry.scrape();
        int declared = 0;
        for (OpKind kind : OpKind.values()) {
            for (ThreadRole role : ThreadRole.values()) {
                String count = "stallscope_op_seconds_count{op=\"" + kind.label() + "\",role=\"" + role.label() + "\"} 0";
                if (kind.expectedOn(role)) {
                    declared++;
                    assertThat(scrape).contains(count);
                } else {
                    assertThat(scrape).doesNotContain(count);
                }
            }
        }
        assertThat(scrape).doesNotContain("op=\"tls_transfer\",role=\"log_cleaner\"");
        assertThat(scrape.lines().filter(l -> l.startsWith("stallscope_op_seconds_count{"))).hasSize(declared);
        assertThat(declared).isLessThan(OpKind.count() * ThreadRole.values().length);
    }

    @Test
    void anOpOnARoleNotDeclaredGetsItsSeriesAndListenersHearOfIt() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        OpMetrics metrics = new OpMetrics(registry, false, 100);
        int other = ThreadRole.OTHER.ordinal();
        assertThat(OpKind.of(Op.SEGMENT_FLUSH).expectedOn(ThreadRole.OTHER)).isFalse();
        assertThat(metrics.hasSeries(Op.SEGMENT_FLUSH, other)).isFalse();
        List<String> heard = new ArrayList<>();
        metrics.addSeriesListener((labels, h) -> heard.add(labels[0] + "/" + labels[1]));
        metrics.record(Op.SEGMENT_FLUSH, other, 2_000_000L, 0, true);
        metrics.noopFlush(other);
        metrics.record(Op.SEGMENT_FLUSH, other, 2_000_000L, 0, false);
        assertThat(heard).containsExactly("segment_flush/other");
        assertThat(registry.scrape())
            .contains("stallscope_op_seconds_count{op=\"segment_flush\",role=\"other\"} 2")
            .contains("stallscope_op_errors_total{op=\"segment_flush\",role=\"other\"} 1.0")
            .contains("stallscope_flush_noop_total{op=\"segment_flush\",role=\"other\"} 1.0");
    }
}
