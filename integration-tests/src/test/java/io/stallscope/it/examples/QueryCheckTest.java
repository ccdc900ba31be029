package io.stallscope.it.examples;

import io.stallscope.it.broker.PrometheusScrape;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * QueryCheck on the paired-only metric: checked by the vocabulary the agent can serve, whether the broker paired
 * nothing or paired something other than what the query asks for.
 */
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

    /**
     * The scrape of CI's failed run (issue 56): the fast-disk broker happened to pair a roll behind a scheduler flush, so
     * the metric was served with behind_role="scheduler" only. A query on network-thread pairings is still right.
     */
    @Test
    void aPairingThatHappenedDoesNotNarrowWhatAQueryMayAskFor() {
        PrometheusScrape paired = PrometheusScrape.parse(NO_PAIRING.text() + """
            stallscope_op_seconds_count{op="log_roll",role="request_handler"} 3
            stallscope_op_seconds_count{op="segment_flush",role="scheduler"} 3
            stallscope_blocked_behind_seconds_total{op="log_roll",role="request_handler",behind_op="segment_flush",\
            behind_role="scheduler",scope="device"} 0.2
            """);
        assertThat(QueryCheck.problems("q", "sum by (instance, op, behind_op, scope) (rate(stallscope_blocked_behind_seconds_total"
            + "{op=~\"records_append\", role=\"request_handler\", behind_role=\"network\"}[5m]))", paired)).isEmpty();
        assertThat(QueryCheck.problems("q", "rate(stallscope_blocked_behind_seconds_total{behind_role=\"network_thread\"}[5m])",
            paired)).singleElement().asString().contains("never has behind_role=\"network_thread\"");
    }

    @Test
    void servedLabelsTheReferenceDoesNotGiveAreAProblem() {
        PrometheusScrape odd = PrometheusScrape.parse(NO_PAIRING.text() + """
            stallscope_blocked_behind_seconds_total{op="records_append",role="request_handler",culprit="x"} 0.2
            """);
        assertThat(QueryCheck.problems("q", "rate(stallscope_blocked_behind_seconds_total[5m])", odd))
            .singleElement().asString().contains("not the ones docs/reference.md gives it");
    }

    @Test
    void aMisspelledRoleOrLabelIsStillAProblem() {
        assertThat(QueryCheck.problems("q", "rate(stallscope_blocked_behind_seconds_total{behind_role=\"network_thread\"}[5m])",
            NO_PAIRING)).singleElement().asString().contains("never has behind_role=\"network_thread\"");
        assertThat(QueryCheck.problems("q", "sum by (instance, behind) (rate(stallscope_blocked_behind_seconds_total[5m]))",
            NO_PAIRING)).singleElement().asString().contains("groups by behind");
    }

    /** A remote read's wait in the reader pool's queue pairs at scope pool (docs/tiered-storage.md), no other. */
    @Test
    void aQueuedRemoteReadPairsInThePool() {
        PrometheusScrape tiered = PrometheusScrape.parse(NO_PAIRING.text() + """
            stallscope_op_seconds_count{op="remote_queue_wait",role="other"} 5
            stallscope_op_seconds_count{op="remote_read",role="other"} 5
            """);
        assertThat(QueryCheck.problems("q", "sum by (instance, behind_op, scope) (rate(stallscope_blocked_behind_seconds_total"
            + "{op=\"remote_queue_wait\", scope=\"pool\"}[5m]))", tiered)).isEmpty();
        assertThat(QueryCheck.problems("q", "rate(stallscope_blocked_behind_seconds_total{scope=\"reader_pool\"}[5m])", tiered))
            .singleElement().asString().contains("never has scope=\"reader_pool\"");
    }

    /** Each scope the check accepts is one docs/reference.md names for the metric, in backquotes. */
    @Test
    void theScopesAreTheReferences() throws Exception {
        String reference = java.nio.file.Files.readString(Examples.root().resolve("docs/reference.md"));
        String row = reference.lines().filter(l -> l.startsWith("| `" + PairedOnlyMetrics.BLOCKED_BEHIND + "` |"))
            .findFirst().orElseThrow();
        for (String scope : PairedOnlyMetrics.SCOPES) {
            assertThat(row).as("docs/reference.md names scope " + scope).contains("`" + scope + "`");
        }
    }

    @Test
    void anotherMetricMissingFromTheScrapeIsNotServed() {
        assertThat(QueryCheck.problems("q", "rate(stallscope_blocked_total[5m])", NO_PAIRING))
            .singleElement().asString().contains("is not served");
    }
}
