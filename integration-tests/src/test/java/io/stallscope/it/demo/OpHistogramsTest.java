package io.stallscope.it.demo;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The live table's numbers from two real scrapes of the agent, 3 s apart, during the demo's stall. */
class OpHistogramsTest {

    private static String scrape(int n) throws IOException {
        try (InputStream in = OpHistogramsTest.class.getResourceAsStream("scrape-" + n + ".txt")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void opsBetweenTwoScrapesAreTheDifferenceOfTheirBuckets() throws IOException {
        List<OpHistograms.Row> rows = OpHistograms.parse(scrape(2)).since(OpHistograms.parse(scrape(1)));

        OpHistograms.Row snapshot = OpHistograms.find(rows, "snapshot_write", "request_handler").orElseThrow();
        assertThat(snapshot.count()).isEqualTo(20 - 13);
        assertThat(snapshot.p50()).isEqualTo(0.25);
        // the agent's max (161 ms) lies in the highest bucket that grew, (100 ms, 250 ms]: it is this interval's
        assertThat(snapshot.maxExact()).isTrue();
        assertThat(snapshot.max()).isCloseTo(0.161027065, within(1e-9));

        OpHistograms.Row network = OpHistograms.find(rows, "transfer_to", "network").orElseThrow();
        assertThat(network.count()).isEqualTo(154 - 103);
        assertThat(network.p50()).isEqualTo(0.05); // 36 of the 51 at or below 50 ms, 48 at or below 100 ms
        assertThat(network.p99()).isEqualTo(0.25);

        assertThat(OpHistograms.find(rows, "log_roll", "request_handler").orElseThrow().count()).isEqualTo(7);
        // ops without any call in the interval are not rows
        assertThat(rows).allSatisfy(r -> assertThat(r.count()).isPositive());
        assertThat(OpHistograms.find(rows, "transfer_to", "request_handler")).isEmpty();
    }

    @Test
    void anEarlierLongerOpIsNotReportedAsThisIntervalsMax() throws IOException {
        // as if a 900 ms append had happened before the interval: the agent's max still shows it
        String later = scrape(2).replace("stallscope_op_seconds_max{op=\"records_append\",role=\"request_handler\"} 0.030673513",
            "stallscope_op_seconds_max{op=\"records_append\",role=\"request_handler\"} 0.9");
        OpHistograms.Row append = OpHistograms.find(OpHistograms.parse(later).since(OpHistograms.parse(scrape(1))),
            "records_append", "request_handler").orElseThrow();

        assertThat(append.count()).isEqualTo(1870 - 1659);
        assertThat(append.maxExact()).isFalse();
        // the highest bucket that grew in the interval is (1 ms, 2.5 ms]: the 31 ms append was before it too
        assertThat(append.max()).isEqualTo(0.0025);
        assertThat(OpTable.format(List.of(append), Duration.ofMillis(50))).contains("<=2.5ms");
    }

    @Test
    void countersThatWentDownMeanTheAgentWasAttachedAgain() throws IOException {
        List<OpHistograms.Row> rows = OpHistograms.parse(scrape(1)).since(OpHistograms.parse(scrape(2)));

        assertThat(OpHistograms.find(rows, "snapshot_write", "request_handler").orElseThrow().count()).isEqualTo(13);
    }

    @Test
    void theTableMarksRowsWhoseLongestOpIsSlow() throws IOException {
        String table = OpTable.format(OpHistograms.parse(scrape(2)).rows(), Duration.ofMillis(50));

        assertThat(table.lines().filter(l -> l.startsWith("snapshot_write")).findFirst().orElseThrow())
            .matches("snapshot_write +request_handler +20 +250ms +250ms +161ms  << slow");
        assertThat(table.lines().filter(l -> l.startsWith("records_append")).findFirst().orElseThrow())
            .doesNotContain("slow");
    }
}
