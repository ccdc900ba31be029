package io.stallscope.it.examples;

import io.stallscope.it.broker.PrometheusScrape;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** QueryCheck on a scrape of a broker that paired nothing: the paired-only metric checked by its vocabulary. */
class QueryCheckTest {
    private static final PrometheusScrape NO_PAIRING = PrometheusScrape.parse("""
        stallscope_op_seconds_count{op="records_append",role="request_handler"} 10
        stallscope_op_seconds_count{op="transfer_to",role="network"} 4
        """);

    @Test
    void aQueryOnTheBlockedBehindMetricPassesWithServedOpsAndRoles() {
        assertThat(QueryCheck.problems("q", "sum by (instance, op, behind_op, scope) (rate(stallscope_blocked_behind_seconds_total"
            + "{role=\"request_handler\", behind_role=\"network\", behind_op=\"transfer_to\"}[5m]))", NO_PAIRING)).isEmpty();
        assertThat(QueryCheck.resultLabels("stallscope_blocked_behind_seconds_total", NO_PAIRING))
            .contains("behind_op", "behind_role", "scope", "instance");
    }

    @Test
    void aMisspelledRoleOrLabelIsStillAProblem() {
        assertThat(QueryCheck.problems("q", "rate(stallscope_blocked_behind_seconds_total{behind_role=\"network_thread\"}[5m])",
            NO_PAIRING)).singleElement().asString().contains("never has behind_role=\"network_thread\"");
        assertThat(QueryCheck.problems("q", "sum by (instance, behind) (rate(stallscope_blocked_behind_seconds_total[5m]))",
            NO_PAIRING)).singleElement().asString().contains("groups by behind");
    }

    @Test
    void anotherMetricMissingFromTheScrapeIsNotServed() {
        assertThat(QueryCheck.problems("q", "rate(stallscope_blocked_total[5m])", NO_PAIRING))
            .singleElement().asString().contains("is not served");
    }
}
