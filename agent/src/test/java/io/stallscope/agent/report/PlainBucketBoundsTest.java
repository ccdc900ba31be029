package io.stallscope.agent.report;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PlainBucketBoundsTest {
    @Test
    void scientificBoundsBecomePlainAndTheRestStays() {
        String scrape = "a_bucket{op=\"x\",role=\"network\",le=\"1.0E-5\"} 0\n"
            + "a_bucket{le=\"2.5E-5\",op=\"x\"} 1\n"
            + "a_bucket{op=\"x\",le=\"0.025\"} 2\n"
            + "a_bucket{op=\"x\",le=\"10.0\"} 3\n"
            + "a_bucket{op=\"x\",le=\"+Inf\"} 4\n"
            + "b{role=\"1.0E-5\"} 5\n";
        assertThat(PlainBucketBounds.rewrite(scrape)).isEqualTo(
            "a_bucket{op=\"x\",role=\"network\",le=\"0.00001\"} 0\n"
                + "a_bucket{le=\"0.000025\",op=\"x\"} 1\n"
                + "a_bucket{op=\"x\",le=\"0.025\"} 2\n"
                + "a_bucket{op=\"x\",le=\"10.0\"} 3\n"
                + "a_bucket{op=\"x\",le=\"+Inf\"} 4\n"
                + "b{role=\"1.0E-5\"} 5\n");
    }

    @Test
    void everyBoundOfTheOpHistogramsPrintsPlain() {
        StringBuilder sb = new StringBuilder();
        for (long b : OpHistogram.BOUNDS) {
            sb.append("x_bucket{le=\"").append(b / 1e9).append("\"} 0\n");
        }
        String out = PlainBucketBounds.rewrite(sb.toString());
        assertThat(out).doesNotContain("E").contains("le=\"0.00001\"").contains("le=\"0.00005\"")
            .contains("le=\"10.0\"");
    }
}
