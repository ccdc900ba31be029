package io.stallscope.it.broker;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The one Prometheus text parser of the tests: series, label sums, and op histograms between two scrapes. */
class PrometheusScrapeTest {
    private static String scrape(long le1, long le10, long le100, long inf) {
        return "# TYPE stallscope_op_seconds histogram\n"
            + "stallscope_op_seconds_bucket{le=\"0.001\",op=\"transfer_to\",role=\"network\"} " + le1 + "\n"
            + "stallscope_op_seconds_bucket{le=\"0.01\",op=\"transfer_to\",role=\"network\"} " + le10 + "\n"
            + "stallscope_op_seconds_bucket{le=\"0.1\",op=\"transfer_to\",role=\"network\"} " + le100 + "\n"
            + "stallscope_op_seconds_bucket{le=\"+Inf\",op=\"transfer_to\",role=\"network\"} " + inf + "\n"
            + "stallscope_op_seconds_count{op=\"transfer_to\",role=\"network\"} " + inf + "\n"
            + "stallscope_op_seconds_bucket{le=\"0.001\",op=\"transfer_to\",role=\"request_handler\"} 0\n"
            + "stallscope_op_seconds_bucket{le=\"+Inf\",op=\"transfer_to\",role=\"request_handler\"} 1000\n";
    }

    @Test
    void quantileOfTheOpsBetweenTwoScrapes() {
        PrometheusScrape before = PrometheusScrape.parse(scrape(100, 100, 100, 100));
        // since then: 90 under 1 ms, 9 under 10 ms, 1 under 100 ms
        PrometheusScrape after = PrometheusScrape.parse(scrape(190, 199, 200, 200));
        assertThat(after.quantileMsSince(before, "transfer_to", "network", 0.5)).isEqualTo(1.0);
        assertThat(after.quantileMsSince(before, "transfer_to", "network", 0.99)).isEqualTo(10.0);
        assertThat(after.quantileMsSince(before, "transfer_to", "network", 0.999)).isEqualTo(100.0);
        assertThat(after.countSince(before, "transfer_to", "network")).isEqualTo(100);
        assertThat(after.quantileMsSince(after, "transfer_to", "network", 0.99)).isNaN();
    }

    @Test
    void opsBetweenTwoScrapesAndHowManyWereSlow() {
        PrometheusScrape before = PrometheusScrape.parse(scrape(100, 100, 100, 100)
            + "stallscope_op_seconds_sum{op=\"transfer_to\",role=\"network\"} 1.0\n");
        PrometheusScrape after = PrometheusScrape.parse(scrape(190, 199, 200, 200)
            + "stallscope_op_seconds_sum{op=\"transfer_to\",role=\"network\"} 1.25\n");
        // 100 ops since, 10 of them over 1 ms, 1 over 10 ms, 250 ms in all; the handler's series did not move
        assertThat(after.countAboveSince(before, "transfer_to", "network", 1)).isEqualTo(10);
        assertThat(after.countAboveSince(before, "transfer_to", "network", 10)).isEqualTo(1);
        assertThat(after.opsSince(before)).containsExactly("transfer_to network count 100 p99 <= 10 ms total 250 ms");
    }

    @Test
    void labelsAreUnescapedAndALineThatIsNoSampleFailsTheParse() {
        PrometheusScrape s = PrometheusScrape.parse("# HELP x help\nx_total{topic=\"a\\\"b\",partition=\"0\"} 3.0\n");
        assertThat(s.labelValues("x_total", "topic")).containsExactly("a\"b");
        assertThat(s.sum("x_total", java.util.Map.of("partition", "0"))).isEqualTo(3.0);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> PrometheusScrape.parse("{oops} 1\n"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a sample line");
    }
}
