package io.stallscope.analyzer.analysis;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

class KafkaThreadsTest {
    /**
     * The agent's ThreadRole labels, as its ReferenceTables writes them into docs/reference.md (the agent's
     * ReadmeTablesTest keeps that line equal to the code): the analyzer's roles must be those, in that order.
     */
    @Test
    void theRolesAreTheAgentsLabels() throws Exception {
        String readme = Files.readString(Path.of("..", "docs", "reference.md"));
        Matcher line = Pattern.compile("Labels: `op` \\(above\\), `role` \\(([^)]*)\\)").matcher(readme);
        assertThat(line.find()).as("docs/reference.md's generated metric labels line").isTrue();
        List<String> agent = new ArrayList<>();
        Matcher label = Pattern.compile("`([a-z_]+)`").matcher(line.group(1));
        while (label.find()) {
            agent.add(label.group(1));
        }
        assertThat(agent).isNotEmpty();
        assertThat(KafkaThreads.ROLES).isEqualTo(agent);
    }

    /** The agent's ThreadRolesTest table (default controller listener CONTROLLER), with its labels. */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "data-plane-kafka-network-thread-1-ListenerName(PLAINTEXT)-PLAINTEXT-0 | network",
        "data-plane-kafka-network-thread-0-ListenerName(SSL)-SSL-2              | network",
        "data-plane-kafka-network-thread-1-PLAINTEXT-PLAINTEXT-0                | network",
        "data-plane-kafka-network-thread-1-REPLICATION_LISTENER-SASL_SSL-11     | network",
        "data-plane-kafka-network-thread-1-MY-DASHED-LISTENER-PLAINTEXT-3       | network",
        "data-plane-kafka-network-thread-1-ListenerName(CONTROLLER)-PLAINTEXT-0 | controller",
        "data-plane-kafka-network-thread-1-CONTROLLER-PLAINTEXT-1               | controller",
        "kafka-network-thread-1-ListenerName(PLAINTEXT)-PLAINTEXT-2             | network",
        "data-plane-kafka-request-handler-0                                     | request_handler",
        "data-plane-kafka-request-handler-15                                    | request_handler",
        "kafka-scheduler-3                                                      | scheduler",
        "ReplicaFetcherThread-0-2                                               | replica_fetcher",
        "ReplicaAlterLogDirsThread-1                                            | replica_fetcher",
        "kafka-log-cleaner-thread-0                                             | log_cleaner",
        "kafka-raft-io-thread                                                   | controller",
        "kafka-1-raft-io-thread                                                 | controller",
        "quorum-controller-1-event-handler                                      | controller",
        "controller-event-thread                                                | controller",
        "main                                                                   | other",
        "data-plane-kafka-socket-acceptor-ListenerName(PLAINTEXT)-PLAINTEXT-9092 | other",
        "my-kafka-scheduler-like-thread                                         | other",
    })
    void classifiesAsTheAgentDoes(String name, String role) {
        assertThat(KafkaThreads.role(name)).isEqualTo(role);
        assertThat(KafkaThreads.ROLES).contains(role);
    }
}
