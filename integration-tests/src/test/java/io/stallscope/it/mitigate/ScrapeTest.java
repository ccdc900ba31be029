package io.stallscope.it.mitigate;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The quantile of an op's durations between two scrapes, from the agent's classic histogram buckets. */
class ScrapeTest {
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
        Scrape before = new Scrape(scrape(100, 100, 100, 100));
        // since then: 90 under 1 ms, 9 under 10 ms, 1 under 100 ms
        Scrape after = new Scrape(scrape(190, 199, 200, 200));
        assertThat(after.quantileMsSince(before, "transfer_to", "network", 0.5)).isEqualTo(1.0);
        assertThat(after.quantileMsSince(before, "transfer_to", "network", 0.99)).isEqualTo(10.0);
        assertThat(after.quantileMsSince(before, "transfer_to", "network", 0.999)).isEqualTo(100.0);
        assertThat(after.countSince(before, "transfer_to", "network")).isEqualTo(100);
        assertThat(after.quantileMsSince(after, "transfer_to", "network", 0.99)).isNaN();
    }
}
