package io.stallscope.it.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ProducerPerfResultTest {

    @Test
    void parsesTheSummaryAndSkipsProgressLines() {
        String out = """
                84871 records sent, 16970.8 records/sec (16.18 MB/sec), 1460.1 ms avg latency, 1827.0 ms max latency.
                100000 records sent, 18419.598452 records/sec (17.57 MB/sec), 1378.74 ms avg latency, 1827.00 ms max latency, 1424 ms 50th, 1746 ms 95th, 1804 ms 99th, 1822 ms 99.9th.
                """;
        ProducerPerfResult r = ProducerPerfResult.parseOutput(out);
        assertThat(r.records()).isEqualTo(100_000);
        assertThat(r.recordsPerSec()).isEqualTo(18419.598452);
        assertThat(r.mbPerSec()).isEqualTo(17.57);
        assertThat(r.avgLatencyMs()).isEqualTo(1378.74);
        assertThat(r.maxLatencyMs()).isEqualTo(1827.0);
        assertThat(r.p50Ms()).isEqualTo(1424);
        assertThat(r.p95Ms()).isEqualTo(1746);
        assertThat(r.p99Ms()).isEqualTo(1804);
        assertThat(r.p999Ms()).isEqualTo(1822);
    }

    @Test
    void progressLineIsNotASummary() {
        assertThat(ProducerPerfResult.parseLine(
                "84871 records sent, 16970.8 records/sec (16.18 MB/sec), 1460.1 ms avg latency, 1827.0 ms max latency.")).isEmpty();
    }

    @Test
    void failsWithoutSummary() {
        assertThatThrownBy(() -> ProducerPerfResult.parseOutput("Exception in thread main"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Exception in thread main");
    }
}
