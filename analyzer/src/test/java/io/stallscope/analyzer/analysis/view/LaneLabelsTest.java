package io.stallscope.analyzer.analysis.view;

import io.stallscope.analyzer.analysis.KafkaThreads;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/** Lane labels fit the name column and keep apart threads whose names differ only at the end or in the middle. */
class LaneLabelsTest {
    private static final int MAX = ReportViews.LANE_LABEL;

    @Test
    void fourNetworkThreadsOfABrokerStayApart() {
        List<String> names = IntStream.range(0, 4)
                .mapToObj(i -> "data-plane-kafka-network-thread-1-ListenerName(PLAINTEXT)-PLAINTEXT-" + i).toList();
        List<String> shortNames = names.stream().map(KafkaThreads::shortName).toList();
        assertThat(shortNames.get(2)).isEqualTo("kafka-network-thread-1-PLAINTEXT-PLAINTEXT-2");
        List<String> labels = LaneLabels.of(shortNames, MAX);
        assertThat(labels).doesNotHaveDuplicates().allMatch(l -> l.length() <= MAX);
        // Without the Kafka shortening the generic cut still keeps them apart, by their tails.
        List<String> raw = LaneLabels.of(names, MAX);
        assertThat(raw).doesNotHaveDuplicates().allMatch(l -> l.length() <= MAX).allMatch(l -> l.contains(LaneLabels.ELLIPSIS));
        assertThat(raw.get(3)).startsWith("data-plane-kafka").endsWith("PLAINTEXT-3");
    }

    @Test
    void shortNamesAreKeptAndNamesDifferingInTheMiddleStayApart() {
        assertThat(LaneLabels.of(List.of("kafka-scheduler-3", "main"), MAX)).containsExactly("kafka-scheduler-3", "main");
        String head = "a-very-long-pool-name-that-goes-on-and-on-";
        String tail = "-and-ends-the-same-way-for-every-thread-of-the-pool";
        List<String> names = List.of(head + "alpha" + tail, head + "bravo" + tail, head + "bravo-2" + tail);
        List<String> labels = LaneLabels.of(names, MAX);
        assertThat(labels).doesNotHaveDuplicates().allMatch(l -> l.length() <= MAX);
        assertThat(labels.get(0)).contains("alpha");
    }

    @Test
    void otherThreadNamesAreNotShortened() {
        assertThat(KafkaThreads.shortName("ReplicaFetcherThread-0-1")).isEqualTo("ReplicaFetcherThread-0-1");
        assertThat(KafkaThreads.shortName("data-plane-something-else")).isEqualTo("data-plane-something-else");
        assertThat(KafkaThreads.shortName("data-plane-kafka-request-handler-7")).isEqualTo("kafka-request-handler-7");
    }
}
